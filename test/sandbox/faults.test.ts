import { describe, expect, it } from 'vitest';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const sb = useSandbox(start);

describe('fault injection', () => {
  it('returns an injected status with the default error body, before auth, once', async () => {
    sb.injectFaults([{ method: 'GET', path: '/v2/bots/public', status: 500 }]);
    const r = await call(sb, 'GET', '/v2/bots/public', { key: null });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' });
    expect((await call(sb, 'GET', '/v2/bots/public', { key: null })).status).toBe(401);
  });

  it('honours a custom body, prefix paths, method filters and times', async () => {
    sb.injectFaults([{ path: '/v2/hc-interactions/*', method: 'POST', status: 502, body: { oops: true }, times: 2 }]);
    expect((await call(sb, 'GET', '/v2/hc-interactions/public')).status).toBe(200); // method does not match
    const a = await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: {} });
    const b = await call(sb, 'POST', '/v2/hc-interactions/x/feedback/public', { body: {} });
    expect([a.status, b.status]).toEqual([502, 502]);
    expect(a.body).toEqual({ oops: true });
    expect((await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: {} })).status).toBe(400);
  });

  it('consumes queued faults in order', async () => {
    sb.injectFaults([
      { path: '/v2/bots/public', status: 503 },
      { path: '/v2/bots/public', status: 429 },
    ]);
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(503);
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(429);
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(200);
  });

  it('delays a response (delay only: the request then proceeds normally)', async () => {
    sb.injectFaults([{ path: '/v2/bots/public', delayMs: 150 }]);
    const t0 = Date.now();
    const r = await call(sb, 'GET', '/v2/bots/public');
    expect(r.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('drops the connection without a response, and records status 0', async () => {
    sb.clearRequests();
    sb.injectFaults([{ path: '/v2/bots/public', drop: true }]);
    await expect(call(sb, 'GET', '/v2/bots/public')).rejects.toThrow();
    expect(sb.requests.at(-1)!.status).toBe(0);
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(200);
  });

  it('clearFaults empties the queue', async () => {
    sb.injectFaults([{ status: 500, times: 10 }]);
    sb.clearFaults();
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(200);
  });
});
