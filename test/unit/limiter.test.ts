import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { holdFor, LimiterRegistry, reservedSlots, SlidingWindowLimiter } from '../../src/upstream/limiter.js';

const BUDGET = { limit: 5, windowMs: 1000 };
const HOLD = holdFor(BUDGET); // 1000 + 200 + 1 %

/** Settles every promise that can settle without a timer. */
const flush = () => vi.advanceTimersByTimeAsync(0);

function track(promise: Promise<void>): { done: boolean; failed?: unknown } {
  const state: { done: boolean; failed?: unknown } = { done: false };
  promise.then(
    () => (state.done = true),
    (error: unknown) => (state.failed = error),
  );
  return state;
}

/** The describe's tests run on fake timers from a fixed instant, so every hold is measured, not waited for. */
function useFakeClock(): void {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

describe('the in-process sliding window', () => {
  useFakeClock();

  it('admits an uncontended request without a timer, and a burst of N at once', async () => {
    const limiter = new SlidingWindowLimiter(BUDGET);
    const burst = Array.from({ length: 5 }, () => track(limiter.acquire()));
    // Microtasks only: no timer runs, no clock moves.
    await Promise.resolve();
    expect(burst.every((state) => state.done)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('lets the next request start one hold (window + margin) after the oldest slot was taken', async () => {
    const limiter = new SlidingWindowLimiter(BUDGET);
    for (let index = 0; index < 5; index++) await limiter.acquire();
    const sixth = track(limiter.acquire());
    await vi.advanceTimersByTimeAsync(HOLD - 1);
    expect(sixth.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(sixth.done).toBe(true);
  });

  it('never lets any window see more than N starts, whatever the arrival pattern', async () => {
    const limiter = new SlidingWindowLimiter(BUDGET);
    const starts: number[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
    const calls: Promise<void>[] = [];
    for (let index = 0; index < 60; index++) {
      await vi.advanceTimersByTimeAsync(Math.floor(random() * 400));
      const burst = random() < 0.2 ? 4 : 1;
      for (let one = 0; one < burst; one++) calls.push(limiter.acquire().then(() => void starts.push(Date.now())));
    }
    await vi.advanceTimersByTimeAsync(60 * HOLD);
    await Promise.all(calls);
    expect(starts).toHaveLength(calls.length);
    for (let index = BUDGET.limit; index < starts.length; index++) {
      expect(starts[index] - starts[index - BUDGET.limit]).toBeGreaterThanOrEqual(HOLD);
    }
  });

  it('holds every request during a 429 pause, free slots or not', async () => {
    const limiter = new SlidingWindowLimiter(BUDGET);
    await limiter.acquire();
    limiter.pause(800);
    const waiting = [track(limiter.acquire()), track(limiter.acquire())];
    await vi.advanceTimersByTimeAsync(799);
    expect(waiting.some((state) => state.done)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.every((state) => state.done)).toBe(true);
  });

  it('drops a caller that gives up while queued, without spending a slot', async () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 1000 });
    await limiter.acquire();
    const controller = new AbortController();
    const cancelled = track(limiter.acquire(controller.signal));
    const next = track(limiter.acquire());
    controller.abort(new Error('gave up'));
    await flush();
    expect((cancelled.failed as Error).message).toBe('gave up');
    await vi.advanceTimersByTimeAsync(holdFor({ limit: 1, windowMs: 1000 }));
    expect(next.done).toBe(true);
  });
});

describe("a person's call and a sync's pages", () => {
  useFakeClock();

  it('leaves a tenth of the budget to people: background requests stop short of it, a person takes it at once', async () => {
    const budget = { limit: 20, windowMs: 1000 };
    const limiter = new SlidingWindowLimiter(budget);
    expect(reservedSlots(budget)).toBe(2);
    const pages = Array.from({ length: 30 }, () => track(limiter.acquire(undefined, 'background')));
    await flush();
    expect(pages.filter((state) => state.done)).toHaveLength(18);
    const person = track(limiter.acquire());
    await flush();
    expect(person.done).toBe(true);
  });

  it("serves every person's call waiting before any waiting page, whatever their order of arrival", async () => {
    const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 1000 });
    await limiter.acquire();
    await limiter.acquire();
    const order: string[] = [];
    const waiting = [
      limiter.acquire(undefined, 'background').then(() => order.push('page 1')),
      limiter.acquire(undefined, 'background').then(() => order.push('page 2')),
      limiter.acquire().then(() => order.push('person 1')),
      limiter.acquire(undefined, 'background').then(() => order.push('page 3')),
      limiter.acquire().then(() => order.push('person 2')),
    ];
    await vi.advanceTimersByTimeAsync(10 * holdFor({ limit: 2, windowMs: 1000 }));
    await Promise.all(waiting);
    expect(order).toEqual(['person 1', 'person 2', 'page 1', 'page 2', 'page 3']);
  });

  it('never lets any window see more than N starts with both kinds mixed', async () => {
    const limiter = new SlidingWindowLimiter(BUDGET);
    const starts: number[] = [];
    const calls: Promise<void>[] = [];
    for (let index = 0; index < 40; index++) {
      await vi.advanceTimersByTimeAsync((index * 37) % 300);
      calls.push(limiter.acquire(undefined, index % 3 ? 'background' : 'user').then(() => void starts.push(Date.now())));
    }
    await vi.advanceTimersByTimeAsync(60 * HOLD);
    await Promise.all(calls);
    for (let index = BUDGET.limit; index < starts.length; index++) expect(starts[index] - starts[index - BUDGET.limit]).toBeGreaterThanOrEqual(HOLD);
  });
});

describe('the limiter registry', () => {
  it('reads the rate scope from SVC_RATE_SCOPE or --rate-scope, one budget per key by default', () => {
    expect(loadConfig(['--sandbox'], {}).rateScope).toBe('key');
    expect(loadConfig(['--sandbox', '--rate-scope', 'global'], {}).rateScope).toBe('global');
    expect(loadConfig([], { SVC_SANDBOX: 'true', SVC_RATE_SCOPE: 'global' }).rateScope).toBe('global');
    expect(() => loadConfig(['--sandbox', '--rate-scope', 'tenant'], {})).toThrow(ConfigError);
  });

  it('gives each key its own budget, or one for all keys under the global scope', async () => {
    const perKey = new LimiterRegistry({ budget: BUDGET });
    const global = new LimiterRegistry({ budget: BUDGET, scope: 'global' });
    expect(perKey.forKey('svc_one')).not.toBe(perKey.forKey('svc_two'));
    expect(global.forKey('svc_one')).toBe(global.forKey('svc_two'));
    expect(global.budgetId('svc_one')).toBe('global');
    expect(perKey.budgetId('svc_one')).not.toContain('svc_');
    await Promise.all([perKey.stop(), global.stop()]);
  });

  it('evicts a key only once it has been idle for longer than a window', async () => {
    let now = 0;
    const registry = new LimiterRegistry({ budget: BUDGET, now: () => now });
    await registry.forKey('svc_a').acquire();
    now = HOLD - 1;
    registry.evictIdle();
    expect(registry.size).toBe(1);
    now = HOLD;
    registry.evictIdle();
    expect(registry.size).toBe(0);
    await registry.stop();
  });

  it('leaves memory flat after 10,000 distinct keys have come and gone', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let now = 0;
    const registry = new LimiterRegistry({ budget: { limit: 100, windowMs: 60_000 }, now: () => now });
    const cycle = async (round: number) => {
      for (let key = 0; key < 10_000; key++) {
        const limiter = registry.forKey(`svc_round${round}_key${key}`);
        for (let call = 0; call < 2; call++) await limiter.acquire();
      }
    };
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    await cycle(0);
    now += 120_000;
    registry.evictIdle();
    const before = heap();
    await cycle(1);
    const held = heap() - before;
    now += 120_000;
    registry.evictIdle();
    const after = heap() - before;
    expect(registry.size).toBe(0);
    // What 10,000 live keys hold is given back, bar the noise of a shared test process.
    expect(held).toBeGreaterThan(1_000_000);
    expect(after).toBeLessThan(held / 4);
    await registry.stop();
  });
});
