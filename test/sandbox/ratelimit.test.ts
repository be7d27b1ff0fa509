import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { SlidingWindowThrottle } from '../../src/sandbox/ratelimit.js';
import { call } from './helpers.js';

const TOO_MANY = { statusCode: 429, message: 'ThrottlerException: Too Many Requests', error: 'Too Many Requests' };

describe('rate limit (sliding window)', () => {
  it('with scope global: 100 per 60 s across all keys, with no rate-limit headers', async () => {
    const sb = await startSandbox({ rateLimit: { limit: 100, windowMs: 60_000, scope: 'global' } });
    try {
      const keys = [sb.keys.admin, sb.keys.readOnly, sb.keys.otherWorkspace, sb.keys.revoked];
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) statuses.push((await call(sb, 'GET', '/v2/bots/public', { key: keys[i % 4] })).status);
      expect(statuses.filter((s) => s === 429)).toHaveLength(0);
      const r = await call(sb, 'GET', '/v2/bots/public', { key: sb.keys.otherWorkspace });
      expect(r.status).toBe(429);
      expect(r.body).toEqual(TOO_MANY);
      expect(r.headers.get('retry-after')).toBeNull();
      expect([...r.headers.keys()].filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
      expect(sb.requests.at(-1)!.status).toBe(429);
    } finally {
      await sb.close();
    }
  });

  it('setRateLimit(3, 500): the 4th request gets 429, and requests succeed again once the window passes', async () => {
    const sb = await startSandbox();
    try {
      sb.setRateLimit(3, 500);
      const first = await Promise.all([1, 2, 3].map(() => call(sb, 'GET', '/v2/bots/public')));
      expect(first.map((r) => r.status)).toEqual([200, 200, 200]);
      expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(429);
      await new Promise((r) => setTimeout(r, 520));
      expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('is a true sliding window: no fixed-window boundary lets 2N through (fake clock)', async () => {
    let t = 1_000_000;
    const sb = await startSandbox({ now: () => t, rateLimit: { limit: 3, windowMs: 500 } });
    try {
      const get = async () => (await call(sb, 'GET', '/v2/bots/public')).status;
      t = 1_000_400; // late in a would-be fixed window [1_000_000, 1_000_500)
      expect([await get(), await get(), await get()]).toEqual([200, 200, 200]);
      t = 1_000_500; // a fixed window would reset here
      expect(await get()).toBe(429);
      t = 1_000_899;
      expect(await get()).toBe(429);
      t = 1_000_900; // the three arrivals at 1_000_400 have left the window
      expect([await get(), await get(), await get(), await get()]).toEqual([200, 200, 200, 429]);
    } finally {
      await sb.close();
    }
  });

  it('does not count rejected (429) requests, and counts 401s', () => {
    const l = new SlidingWindowThrottle(2, 100);
    expect(l.tryAcquire(0)).toBe(true);
    expect(l.tryAcquire(50)).toBe(true);
    for (let t = 51; t < 100; t++) expect(l.tryAcquire(t)).toBe(false);
    expect(l.tryAcquire(100)).toBe(true); // arrival at 0 expired; rejections did not extend the window
    expect(l.tryAcquire(149)).toBe(false);
    expect(l.tryAcquire(150)).toBe(true);
  });

  it('counts unauthenticated requests towards the global limit', async () => {
    const sb = await startSandbox({ rateLimit: { limit: 2, windowMs: 60_000, scope: 'global' } });
    try {
      expect((await call(sb, 'GET', '/v2/bots/public', { key: null })).status).toBe(401);
      expect((await call(sb, 'GET', '/v2/bots/public', { key: sb.keys.revoked })).status).toBe(401);
      expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(429);
    } finally {
      await sb.close();
    }
  });
});
