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

/** A budget, or `off` for none. */
export type RateLimitSetting = { limit: number; windowMs: number; scope?: RateScope } | 'off';

/** The sandbox's throttle: sliding windows, one per key or one for all, as the scope says; or none while off. */
export class ScopedThrottle {
  private readonly windows = new Map<string, SlidingWindowThrottle>();
  public limit: number;
  public windowMs: number;
  public scope: RateScope;
  private off: boolean;

  /** Default: the spec's 100 requests per 60 s, one budget per key. */
  constructor(setting?: RateLimitSetting) {
    const budget = setting === 'off' ? undefined : setting;
    this.limit = budget?.limit ?? 100;
    this.windowMs = budget?.windowMs ?? 60_000;
    this.scope = budget?.scope ?? 'key';
    this.off = setting === 'off';
  }

  /** As `/__sandbox/info` shows it. */
  describe(): { limit: number; windowMs: number; scope: RateScope } | 'off' {
    return this.off ? 'off' : { limit: this.limit, windowMs: this.windowMs, scope: this.scope };
  }

  /** `keyName`: the key the bearer token identified, or null. */
  tryAcquire(keyName: string | null, now: number): boolean {
    if (this.off) return true;
    const budget = this.scope === 'global' ? UNKNOWN_KEY : (keyName ?? UNKNOWN_KEY);
    let window = this.windows.get(budget);
    if (!window) this.windows.set(budget, (window = new SlidingWindowThrottle(this.limit, this.windowMs)));
    return window.tryAcquire(now);
  }

  /** Changes the limit, window and (when given) scope, and forgets earlier arrivals; turns the throttle on. */
  reset(limit: number, windowMs: number, scope: RateScope = this.scope): void {
    this.off = false;
    this.limit = limit;
    this.windowMs = windowMs;
    this.scope = scope;
    this.windows.clear();
  }
}
