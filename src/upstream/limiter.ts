import type { RateLimit, RateScope } from '../config.js';
import { hashKey } from '../redaction/key-hash.js';

/**
 * Who is waiting for a slot. A person's call (`user`) goes ahead of every `background` request (the
 * pages a mirror sync reads), and background requests leave a reserve of slots untouched, so a call
 * made during a long sync starts at once instead of queueing behind the sync's pages.
 */
export type Priority = 'user' | 'background';

/** What the HTTP core needs from a key's budget. */
export interface KeyLimiter {
  /**
   * Resolves when a request may start; rejects with the signal's reason if the caller gives up
   * first. A request that finds a free slot is admitted at once, without a timer.
   */
  acquire(signal?: AbortSignal, priority?: Priority): Promise<void>;
  /** After a 429 (another client of the key spent the budget) every request of this key waits. */
  pause(ms: number): void;
  /** True when nothing is held, queued or paused: dropping the limiter loses no state. */
  idle(): boolean;
  stop(): Promise<void>;
}

export type Clock = () => number;

const ADMITTED = Promise.resolve();

/** Slots of a window that background requests leave free for people's calls: a tenth, at least one. */
export function reservedSlots(budget: RateLimit): number {
  return budget.limit > 1 ? Math.max(1, Math.floor(budget.limit / 10)) : 0;
}

interface Waiter {
  priority: Priority;
  resolve(): void;
  reject(reason: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * A sliding-window budget: each start holds one of `limit` slots until `windowMs + margin` later,
 * so no window of that length can ever see more than `limit` starts, while a burst uses every free
 * slot at once. Only the starts still held are kept, oldest first: with `limit` of them held, the
 * oldest says when the next slot frees. Waiters queue in order behind one timer, set for when the
 * first of them may go: people's calls first, then background requests, which may only take a slot
 * while more than the reserve are free.
 */
export class SlidingWindowLimiter implements KeyLimiter {
  private readonly holdMs: number;
  /** Start times, oldest first; those before `first` have been released. */
  private starts: number[] = [];
  private first = 0;
  private pausedUntil = 0;
  private readonly waiters: Waiter[] = [];
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly reserve: number;

  constructor(
    readonly budget: RateLimit,
    private readonly now: Clock = Date.now,
  ) {
    this.holdMs = holdFor(budget);
    this.reserve = reservedSlots(budget);
  }

  /** When the last slot handed out is released. */
  get busyUntil(): number {
    return this.starts.length > this.first ? this.starts[this.starts.length - 1] + this.holdMs : 0;
  }

  acquire(signal?: AbortSignal, priority: Priority = 'user'): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.stopped) return Promise.reject(new Error('The rate limiter has stopped'));
    if (this.waiters.length === 0 && this.readyAt(priority) <= this.now()) {
      this.take();
      return ADMITTED;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { priority, resolve, reject, signal };
      if (signal) {
        // A caller that gives up while queued never held a slot, so nothing is released.
        waiter.onAbort = () => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(signal.reason);
          this.schedule();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      // People's calls queue ahead of every background request, in arrival order among themselves.
      const firstBackground = priority === 'user' ? this.waiters.findIndex((queued) => queued.priority === 'background') : -1;
      if (firstBackground === -1) this.waiters.push(waiter);
      else this.waiters.splice(firstBackground, 0, waiter);
      this.schedule();
    });
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
    this.schedule();
  }

  idle(): boolean {
    const now = this.now();
    return this.waiters.length === 0 && this.busyUntil <= now && this.pausedUntil <= now;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
      waiter.reject(new Error('The rate limiter has stopped'));
    }
  }

  /**
   * The earliest time a start of this priority is allowed: a slot is free (or the oldest held one
   * frees), and any 429 pause is over. A background start needs the reserve free besides its own slot.
   */
  private readyAt(priority: Priority): number {
    const now = this.now();
    while (this.first < this.starts.length && this.starts[this.first] + this.holdMs <= now) this.first++;
    if (this.first > 64 && this.first * 2 > this.starts.length) {
      this.starts = this.starts.slice(this.first);
      this.first = 0;
    }
    const usable = priority === 'user' ? this.budget.limit : this.budget.limit - this.reserve;
    const held = this.starts.length - this.first;
    const slotFree = held < usable ? now : this.starts[this.starts.length - usable] + this.holdMs;
    return Math.max(slotFree, this.pausedUntil);
  }

  private take(): void {
    this.starts.push(this.now());
  }

  private release(): void {
    this.timer = undefined;
    while (this.waiters.length > 0 && this.readyAt(this.waiters[0].priority) <= this.now()) {
      const waiter = this.waiters.shift()!;
      if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
      this.take();
      waiter.resolve();
    }
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiters.length === 0 || this.stopped) return;
    this.timer = setTimeout(() => this.release(), Math.max(0, this.readyAt(this.waiters[0].priority) - this.now()));
  }
}

/** Room for network delay between our start and the upstream's arrival clock. */
function marginFor(windowMs: number): number {
  return Math.round(200 + windowMs * 0.01);
}

export function holdFor(budget: RateLimit): number {
  return budget.windowMs + marginFor(budget.windowMs);
}

/** Budgets held beyond this process, so that a fleet's nodes share them (Redis: src/fleet/redis-budgets.ts). */
export interface SharedBudgets {
  /** The limiter of one budget id, counted wherever the budgets are held. */
  limiter(budget: RateLimit, id: string): KeyLimiter;
  /** Whether the budgets' store answers now. */
  ping(): Promise<boolean>;
}

export interface LimiterRegistryOptions {
  budget: RateLimit;
  /** `key`: one budget per API key; `global`: one budget for every key this process serves. */
  scope?: RateScope;
  /** The fleet's budgets, when the runtime has them; without them each budget is this process's alone. */
  shared?: SharedBudgets;
  now?: Clock;
}

const GLOBAL_ID = 'global';

/**
 * One limiter per budget (per API key by its hash, never the key itself, or one for all keys),
 * created on first use and dropped once it has been idle for longer than a window, so a server
 * that sees many keys holds state only for the recent ones. Shared budgets are the runtime's: it
 * starts and stops them.
 */
export class LimiterRegistry {
  private readonly limiters = new Map<string, KeyLimiter>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: Clock;

  constructor(private readonly options: LimiterRegistryOptions) {
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.evictIdle(), holdFor(options.budget));
    this.sweeper.unref();
  }

  /** The id under which a key's requests are counted: its hash, or one id for all under the global scope. */
  budgetId(apiKey: string): string {
    return this.options.scope === 'global' ? GLOBAL_ID : hashKey(apiKey);
  }

  /** The limiter of a budget id; look it up per request, since an idle one may have been evicted. */
  forId(id: string): KeyLimiter {
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.options.shared ? this.options.shared.limiter(this.options.budget, `svc-mcp:${id}`) : new SlidingWindowLimiter(this.options.budget, this.now);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  forKey(apiKey: string): KeyLimiter {
    return this.forId(this.budgetId(apiKey));
  }

  /** How many budgets hold state now. */
  get size(): number {
    return this.limiters.size;
  }

  /** Drops every limiter that holds nothing: all its slots are older than a window, nothing waits. */
  evictIdle(): void {
    for (const [id, limiter] of this.limiters) {
      if (!limiter.idle()) continue;
      this.limiters.delete(id);
      void limiter.stop();
    }
  }

  /** For health checks: undefined without shared budgets, else whether their store (Redis) answers now. */
  async sharedBudgetsReachable(): Promise<boolean | undefined> {
    return this.options.shared?.ping();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.limiters.values()].map((limiter) => limiter.stop()));
    this.limiters.clear();
  }
}
