import type { KeyCheck, KeyVerdict } from '../../access.js';
import type { ApiClient, ApiRequest } from '../../upstream/client.js';
import { ApiError, AuthenticationError, ConnectionError, NotFoundError, NotJsonError, PermissionError } from '../../upstream/errors.js';
import type { Logger } from '../../log.js';

/**
 * How long a verdict is reused. An accepted key is asked about again after 5 minutes, so a key
 * revoked since gets no new session for longer than that (its open sessions' calls are refused by
 * the API itself). A refused key is remembered for 1 minute: a revoked key never comes back, and a
 * key just created but not yet known everywhere is let in on a retry soon after. A check that got
 * no usable answer is not remembered: the next initialize asks again.
 */
const ACCEPTED_FOR_MS = 5 * 60_000;
const REFUSED_FOR_MS = 60_000;
/**
 * Verdicts kept of each kind, the oldest dropped first. Accepted and refused keys are kept apart,
 * so a stream of made-up keys (refused) can push out only other refused keys, never a tenant's.
 */
const MAX_VERDICTS = 10_000;
/** The upstream sees at most this many key checks a second, whatever arrives: the server is no key oracle. */
export const CHECKS_PER_SECOND = 50;
/** Checks running at once, for all keys together. */
const CHECKS_AT_ONCE = 8;
/** Checks waiting per client address; beyond it that address's next check is answered at once. */
const WAITING_PER_ADDRESS = 200;
/** Checks waiting in all; when full, a check from an address with fewer waiting takes the place of the newest from the address with most. */
const MAX_WAITING = 2_000;
/** How long an address's refused keys count against its turn. */
const REFUSALS_COUNTED_MS = 60_000;
/** One read every key with the read scope may make, and the cheapest: the agent list. */
const PROBE: ApiRequest = { method: 'GET', path: '/v2/bots/public', read: true, backoff: false };

interface Waiting {
  start(): void;
  /** Gives up the place without running (the newest of the longest queue, when a newcomer needs room). */
  drop(reason: string): void;
}

/**
 * Asks the API whether a key is valid before a session (or an OAuth grant) is bound to it, through
 * the one HTTP core, with one check in flight per key however many requests arrive at once.
 *
 * Unknown keys cost the API: checks run at most CHECKS_AT_ONCE at a time and CHECKS_PER_SECOND a
 * second, taken from the client addresses that wait in turn (round robin), so a flood from one
 * address waits behind itself while a tenant from another address is checked within a turn or two.
 * A key the API accepted keeps its verdict whatever else arrives.
 */
export class KeyVerifier implements KeyCheck {
  private readonly accepted = new Map<string, number>();
  private readonly refused = new Map<string, number>();
  private readonly checking = new Map<string, Promise<KeyVerdict>>();
  /** Waiting checks by client address, in the order the addresses first waited. */
  private readonly queues = new Map<string, Waiting[]>();
  private waitingCount = 0;
  private running = 0;
  /** When each of the last CHECKS_PER_SECOND checks started. */
  private readonly recentStarts: number[] = [];
  /** Keys the API refused per client address, counted over a minute from the first. */
  private readonly refusedFrom = new Map<string, { since: number; count: number }>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly client: ApiClient,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  verify(key: string, keyHash: string, from: string): Promise<KeyVerdict> {
    const known = this.known(keyHash);
    if (known) return Promise.resolve(known);
    let pending = this.checking.get(keyHash);
    if (!pending) {
      pending = this.check(key, keyHash, from).finally(() => this.checking.delete(keyHash));
      this.checking.set(keyHash, pending);
    }
    return pending;
  }

  /** Checks waiting their turn, in all or from one address. */
  waiting(from?: string): number {
    return from === undefined ? this.waitingCount : (this.queues.get(from)?.length ?? 0);
  }

  private known(keyHash: string): KeyVerdict | undefined {
    const now = this.now();
    for (const [verdicts, kind] of [
      [this.accepted, 'accepted'],
      [this.refused, 'refused'],
    ] as const) {
      const until = verdicts.get(keyHash);
      if (until === undefined) continue;
      verdicts.delete(keyHash);
      if (until <= now) continue;
      // Kept as the newest: a tenant in use is never the oldest to go.
      verdicts.set(keyHash, until);
      return { kind };
    }
    return undefined;
  }

  private async check(key: string, keyHash: string, from: string): Promise<KeyVerdict> {
    const turn = await this.takeTurn(from);
    if (turn !== true) return { kind: 'unchecked', reason: turn };
    let verdict: KeyVerdict;
    try {
      verdict = await this.ask(key);
    } finally {
      this.running--;
      this.schedule();
    }
    this.logger[verdict.kind === 'unchecked' ? 'warn' : 'debug']({ key: keyHash, verdict: verdict.kind, reason: verdict.kind === 'unchecked' ? verdict.reason : undefined }, 'API key checked');
    if (verdict.kind !== 'unchecked') this.remember(keyHash, verdict.kind);
    if (verdict.kind === 'refused') this.countRefusal(from);
    return verdict;
  }

  /** Resolves true once this check may run, or with why it will not. */
  private takeTurn(from: string): Promise<true | string> {
    return new Promise((resolve) => {
      const queue = this.queues.get(from) ?? [];
      if (queue.length >= WAITING_PER_ADDRESS) return resolve(`${WAITING_PER_ADDRESS} API key checks from your address are already waiting`);
      if (this.waitingCount >= MAX_WAITING && !this.makeRoomFor(queue.length)) return resolve(`${MAX_WAITING} API key checks are already waiting`);
      queue.push({ start: () => resolve(true), drop: (reason) => resolve(reason) });
      this.queues.set(from, queue);
      this.waitingCount++;
      this.schedule();
    });
  }

  /** Drops the newest check of the address with the most waiting, if it has more than `fewer` + 1. */
  private makeRoomFor(fewer: number): boolean {
    let longest: [string, Waiting[]] | undefined;
    for (const entry of this.queues) if (!longest || entry[1].length > longest[1].length) longest = entry;
    if (!longest || longest[1].length <= fewer + 1) return false;
    longest[1].pop()!.drop(`${MAX_WAITING} API key checks are waiting, most of them from your address`);
    this.waitingCount--;
    if (longest[1].length === 0) this.queues.delete(longest[0]);
    return true;
  }

  /** Starts what the bounds allow, one address after another, and wakes up when the rate window lets more start. */
  private schedule(): void {
    while (this.waitingCount > 0 && this.running < CHECKS_AT_ONCE) {
      const now = this.now();
      while (this.recentStarts.length && this.recentStarts[0] <= now - 1000) this.recentStarts.shift();
      if (this.recentStarts.length >= CHECKS_PER_SECOND) {
        if (!this.timer) {
          this.timer = setTimeout(
            () => {
              this.timer = undefined;
              this.schedule();
            },
            this.recentStarts[0] + 1000 - now,
          );
          this.timer.unref();
        }
        return;
      }
      const [from, queue] = this.nextAddress();
      this.queues.delete(from);
      const next = queue.shift()!;
      if (queue.length) this.queues.set(from, queue);
      this.waitingCount--;
      this.running++;
      this.recentStarts.push(now);
      next.start();
    }
  }

  /**
   * Whose check runs next: of the addresses waiting, the one whose keys the API refused least in the
   * last minute (a flood of made-up keys racks up refusals, a tenant's key does not), and among
   * those the one that has waited longest since its last turn; it then goes to the back of the line.
   */
  private nextAddress(): [string, Waiting[]] {
    const now = this.now();
    let best: [string, Waiting[]] | undefined;
    let fewest = Number.POSITIVE_INFINITY;
    for (const entry of this.queues) {
      const refusals = this.refusalsOf(entry[0], now);
      if (refusals < fewest) [best, fewest] = [entry, refusals];
      if (fewest === 0) break;
    }
    return best!;
  }

  private refusalsOf(from: string, now: number): number {
    const record = this.refusedFrom.get(from);
    return record && record.since > now - REFUSALS_COUNTED_MS ? record.count : 0;
  }

  private countRefusal(from: string): void {
    const now = this.now();
    const record = this.refusedFrom.get(from);
    this.refusedFrom.delete(from);
    this.refusedFrom.set(from, record && record.since > now - REFUSALS_COUNTED_MS ? { since: record.since, count: record.count + 1 } : { since: now, count: 1 });
    if (this.refusedFrom.size > MAX_VERDICTS) this.refusedFrom.delete(this.refusedFrom.keys().next().value!);
  }

  private async ask(key: string): Promise<KeyVerdict> {
    try {
      await this.client.forKey(key).request(PROBE);
      return { kind: 'accepted' };
    } catch (error) {
      if (error instanceof AuthenticationError) return { kind: 'refused' };
      // The key authenticated; it only lacks the read scope, which a session can live without.
      if (error instanceof PermissionError) return { kind: 'accepted' };
      return { kind: 'unchecked', reason: this.why(error) };
    }
  }

  private why(error: unknown): string {
    if (error instanceof ConnectionError) return error.message;
    if (error instanceof NotJsonError || (error instanceof NotFoundError && error.routeNotFound)) {
      return `${PROBE.method} ${PROBE.path} was answered ${error.status} ${error instanceof NotJsonError ? 'with a body that is not JSON' : "without the API's error body"}: SVC_BASE_URL=${this.client.baseUrl} probably points at something other than the workspace API`;
    }
    if (error instanceof ApiError && error.status !== undefined) return `the API answered ${PROBE.method} ${PROBE.path} with HTTP ${error.status}`;
    return error instanceof Error ? error.message : String(error);
  }

  private remember(keyHash: string, kind: 'accepted' | 'refused'): void {
    const verdicts = kind === 'accepted' ? this.accepted : this.refused;
    verdicts.delete(keyHash);
    verdicts.set(keyHash, this.now() + (kind === 'accepted' ? ACCEPTED_FOR_MS : REFUSED_FOR_MS));
    if (verdicts.size > MAX_VERDICTS) verdicts.delete(verdicts.keys().next().value!);
  }
}
