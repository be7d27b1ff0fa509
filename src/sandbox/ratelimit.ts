/**
 * Global sliding-window throttle: a request is admitted when fewer than `limit` admitted
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
