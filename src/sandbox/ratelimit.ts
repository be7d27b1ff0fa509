/**
 * Sliding-window throttle of one budget: a request is admitted when fewer than `limit` admitted
 * requests arrived within the last `windowMs` (arrival > now - windowMs). Rejected (429)
 * requests are not counted.
 */
export class SlidingWindowThrottle {
  private arrivals: number[] = [];
  constructor(
    public limit: number,
    public windowMs: number,
  ) {}

  /** Admits and records the arrival, or returns false (429). */
  tryAcquire(now: number): boolean {
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < this.arrivals.length && this.arrivals[drop] <= cutoff) drop++;
    if (drop) this.arrivals.splice(0, drop);
    if (this.arrivals.length >= this.limit) return false;
    this.arrivals.push(now);
    return true;
  }

  /** Changes the limit and window and forgets earlier arrivals. */
  reset(limit: number, windowMs: number): void {
    this.limit = limit;
    this.windowMs = windowMs;
    this.arrivals = [];
  }
}

/** `key`: one budget per API key (the server's default SVC_RATE_SCOPE); `global`: one budget for every key. */
export type RateScope = 'key' | 'global';

/** Requests that name no known key share one budget under scope `key`. */
const UNKNOWN_KEY = '';

/** The sandbox's throttle: sliding windows, one per key or one for all, as the scope says. */
export class ScopedThrottle {
  private readonly windows = new Map<string, SlidingWindowThrottle>();
  constructor(
    public limit: number,
    public windowMs: number,
    public scope: RateScope,
  ) {}

  /** `keyName`: the key the bearer token identified, or null. */
  tryAcquire(keyName: string | null, now: number): boolean {
    const budget = this.scope === 'global' ? UNKNOWN_KEY : (keyName ?? UNKNOWN_KEY);
    let window = this.windows.get(budget);
    if (!window) this.windows.set(budget, (window = new SlidingWindowThrottle(this.limit, this.windowMs)));
    return window.tryAcquire(now);
  }

  /** Changes the limit, window and (when given) scope, and forgets earlier arrivals. */
  reset(limit: number, windowMs: number, scope: RateScope = this.scope): void {
    this.limit = limit;
    this.windowMs = windowMs;
    this.scope = scope;
    this.windows.clear();
  }
}
