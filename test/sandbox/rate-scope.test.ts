import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { call } from './helpers.js';

const bots = '/v2/bots/public';

describe('throttle scope', () => {
  it("defaults to one budget per key (the server's default SVC_RATE_SCOPE): two keys each get the whole budget", async () => {
    const sb = await startSandbox({ rateLimit: { limit: 3, windowMs: 60_000 } });
    try {
      const statuses = async (key: string) => Promise.all([1, 2, 3, 4].map(async () => (await call(sb, 'GET', bots, { key })).status));
      expect((await statuses(sb.keys.admin)).sort()).toEqual([200, 200, 200, 429]);
      expect((await statuses(sb.keys.readOnly)).sort()).toEqual([200, 200, 200, 429]);
      const info = await call(sb, 'GET', '/__sandbox/info', { key: null });
      expect(info.body.rateLimit).toEqual({ limit: 3, windowMs: 60_000, scope: 'key' });
    } finally {
      await sb.close();
    }
  });

  it('global: one budget for every key, set through the options or the control route', async () => {
    const sb = await startSandbox({ rateLimit: { limit: 2, windowMs: 60_000, scope: 'global' } });
    try {
      expect((await call(sb, 'GET', bots, { key: sb.keys.admin })).status).toBe(200);
      expect((await call(sb, 'GET', bots, { key: sb.keys.readOnly })).status).toBe(200);
      expect((await call(sb, 'GET', bots, { key: sb.keys.otherWorkspace })).status).toBe(429);

      const perKey = await call(sb, 'POST', '/__sandbox/rate-limit', { key: null, body: { limit: 1, windowMs: 60_000, scope: 'key' } });
      expect(perKey.body).toEqual({ success: true, limit: 1, windowMs: 60_000, scope: 'key' });
      expect((await call(sb, 'GET', bots, { key: sb.keys.admin })).status).toBe(200);
      expect((await call(sb, 'GET', bots, { key: sb.keys.readOnly })).status).toBe(200);
      expect((await call(sb, 'GET', bots, { key: sb.keys.admin })).status).toBe(429);

      // Without a scope the control route keeps the current one; a wrong scope is refused.
      expect((await call(sb, 'POST', '/__sandbox/rate-limit', { key: null, body: { limit: 5, windowMs: 1000 } })).body.scope).toBe('key');
      expect((await call(sb, 'POST', '/__sandbox/rate-limit', { key: null, body: { limit: 5, windowMs: 1000, scope: 'tenant' } })).status).toBe(400);
      sb.setRateLimit(1, 60_000, 'global');
      expect((await call(sb, 'GET', bots, { key: sb.keys.admin })).status).toBe(200);
      expect((await call(sb, 'GET', bots, { key: sb.keys.readOnly })).status).toBe(429);
    } finally {
      await sb.close();
    }
  });

  it('under scope key, requests that name no known key share one budget apart from the keys', async () => {
    const sb = await startSandbox({ rateLimit: { limit: 1, windowMs: 60_000 } });
    try {
      expect((await call(sb, 'GET', bots, { key: null })).status).toBe(401);
      expect((await call(sb, 'GET', bots, { key: 'svc_not_a_key' })).status).toBe(429);
      expect((await call(sb, 'GET', bots)).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});
