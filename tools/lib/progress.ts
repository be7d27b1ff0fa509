import type { ToolContext } from '../../src/engine/define.js';

/** Longest silence between two notifications of a long call, waits for the rate budget included. */
const HEARTBEAT_MS = 5000;

/**
 * Progress of a call that spends many requests (a scan, a sync), in requests: one notification per
 * request, and a heartbeat while the call waits (for the rate budget, or a slow page), so a client
 * hears from it at least every 5 s. The estimated total never moves by more than half between two
 * notifications: a long call starts from a guess and refines it, and a bar that jumps from 10 % to
 * 90 % and back tells the person nothing.
 */
export class RequestProgress {
  private readonly started = Date.now();
  private done = 0;
  private total = 1;
  /** The total the last notification showed: estimates move in steps of at most half of it. */
  private shown = 0;
  private items = 0;
  /** Notifications since the last request, each taking a share of what is left of that request's step. */
  private waits = 0;
  private lastSent = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly context: ToolContext,
    /** What the call does and what it counts, for the message: "Sync", "conversations". */
    private readonly verb: string,
    private readonly noun = 'conversations',
  ) {
    this.timer = setInterval(() => void this.heartbeat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** The best guess of the requests the whole call needs; taken in steps of at most half the last one shown. */
  expect(total: number): void {
    const floor = this.done;
    const wanted = Math.max(floor, Math.round(total));
    this.total = this.shown === 0 ? wanted : Math.max(floor, Math.min(Math.floor(this.shown * 1.5), Math.max(Math.ceil(this.shown * 0.5), wanted)));
  }

  /** One request answered, with the items it brought (conversations kept). */
  async request(items = 0, left?: number): Promise<void> {
    this.done++;
    this.items += items;
    this.waits = 0;
    if (left !== undefined) this.expect(this.done + left);
    if (this.total < this.done) this.total = this.done;
    await this.send(this.done);
  }

  /** A request answered that is not worth a notification of its own (the agent list before the pages). */
  counted(): void {
    this.done++;
  }

  /** The call is over: no more heartbeats. */
  stop(): void {
    clearInterval(this.timer);
  }

  get requests(): number {
    return this.done;
  }

  private async heartbeat(): Promise<void> {
    if (Date.now() - this.lastSent < HEARTBEAT_MS - 50) return;
    this.waits++;
    // Strictly increasing, never reaching the next whole request: 1/2, 2/3, 3/4 ... of it.
    await this.send(this.done + this.waits / (this.waits + 1), true);
  }

  private async send(progress: number, waiting = false): Promise<void> {
    this.lastSent = Date.now();
    const total = Math.max(this.total, Math.ceil(progress));
    this.shown = total;
    const left = total - this.done;
    const { limit, windowMs } = this.context.config.rateLimit;
    // The first `limit` go at once, then `limit` more per window.
    const waitMs = Math.max(0, Math.floor((total - 1) / limit) * windowMs - (Date.now() - this.started));
    const status = left <= 0 ? 'done' : `${formatWait(waitMs)} left at the rate budget of ${limit} per ${windowMs / 1000}s${waiting ? '; waiting for the next request' : ''}`;
    await this.context.progress({ progress, total, message: `${this.verb}: ${this.items} ${this.noun} after ${this.done} of about ${total} requests; ${status}` });
  }
}

export function formatWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds === 0) return 'under 1s';
  return seconds < 90 ? `about ${seconds}s` : `about ${Math.round(seconds / 60)} min`;
}
