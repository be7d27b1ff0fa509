import { describe, expect, it } from 'vitest';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const UNAUTHORIZED = { statusCode: 401, message: 'Invalid or revoked API key', error: 'Unauthorized' };
const FORBIDDEN = { statusCode: 403, message: 'API key does not have the required scope for this operation', error: 'Forbidden' };

const sb = useSandbox(start);

describe('sandbox keys', () => {
  it('generates fresh svc_ keys per sandbox', async () => {
    const other = await start();
    try {
      for (const k of Object.values(sb.keys)) expect(k).toMatch(/^svc_[0-9a-f]{32}$/);
      expect(new Set(Object.values(sb.keys)).size).toBe(4);
      expect(other.keys.admin).not.toBe(sb.keys.admin);
    } finally {
      await other.close();
    }
  });
});

describe('authentication', () => {
  it('accepts Authorization: Bearer', async () => {
    const r = await call(sb, 'GET', '/v2/bots/public');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('retry-after')).toBeNull();
  });

  it('rejects a missing key', async () => {
    const r = await call(sb, 'GET', '/v2/bots/public', { key: null });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHORIZED);
  });

  it.each([
    ['unknown key', `svc_${'0'.repeat(32)}`],
    ['truncated key', 'TRUNC'],
    ['malformed key', 'not-a-key'],
  ])('rejects a %s', async (_label, k) => {
    const key = k === 'TRUNC' ? sb.keys.admin.slice(0, -4) : k;
    const r = await call(sb, 'GET', '/v2/bots/public', { key });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHORIZED);
  });

  it('rejects a non-Bearer scheme', async () => {
    const r = await call(sb, 'GET', '/v2/bots/public', { key: null, headers: { authorization: `Basic ${sb.keys.admin}` } });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHORIZED);
  });

  it('rejects a valid key sent as x-api-key, even alongside a bearer', async () => {
    let r = await call(sb, 'GET', '/v2/bots/public', { key: null, headers: { 'x-api-key': sb.keys.admin } });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHORIZED);
    r = await call(sb, 'GET', '/v2/bots/public', { headers: { 'x-api-key': sb.keys.admin } });
    expect(r.status).toBe(401);
  });

  it.each(['api_key', 'apiKey', 'key'])('rejects a valid key sent as ?%s=', async (param) => {
    const r1 = await call(sb, 'GET', '/v2/bots/public', { key: null, query: { [param]: sb.keys.admin } });
    expect(r1.status).toBe(401);
    expect(r1.body).toEqual(UNAUTHORIZED);
    const r2 = await call(sb, 'GET', '/v2/bots/public', { query: { [param]: sb.keys.admin } });
    expect(r2.status).toBe(401);
  });

  it('rejects a revoked key with 401', async () => {
    const r = await call(sb, 'GET', '/v2/bots/public', { key: sb.keys.revoked });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHORIZED);
  });

  it('rejects a read-only key on write routes with 403 and the fixed message', async () => {
    const ok = await call(sb, 'GET', '/v2/hc-interactions/public', { key: sb.keys.readOnly });
    expect(ok.status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/v2/hc-interactions/events/public', { content: 'hi', botId: sb.seed.bots.storeAssistant }],
      ['POST', `/v2/hc-interactions/${sb.seed.negativeConversation}/feedback/public`, { eventId: sb.seed.negativeEvent, approved: true }],
      ['DELETE', `/v2/hc-interactions/${sb.seed.negativeConversation}/public`, undefined],
    ] as const) {
      const r = await call(sb, method, path, { key: sb.keys.readOnly, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toEqual(FORBIDDEN);
    }
    // nothing changed
    const conv = sb.state.workspaces.get(sb.seed.workspaceA)!.conversations.get(sb.seed.negativeConversation)!;
    expect(conv.events.find((e) => e.id === sb.seed.negativeEvent)!.approved).toBe(false);
  });

  it("answers 403 when another workspace's key addresses this workspace's data by id", async () => {
    const list = await call(sb, 'GET', '/v2/hc-interactions/public', { key: sb.keys.otherWorkspace, query: { botId: sb.seed.bots.storeAssistant } });
    expect(list.status).toBe(403);
    expect(list.body.statusCode).toBe(403);
    expect(list.body.error).toBe('Forbidden');
    expect(list.body.message).toBe('API key does not have the required scope for this operation');
    const gen = await call(sb, 'POST', '/v2/hc-interactions/events/public', {
      key: sb.keys.otherWorkspace,
      body: { content: 'hello', interactionId: sb.seed.negativeConversation },
    });
    expect(gen.status).toBe(403);
    const own = await call(sb, 'GET', '/v2/hc-interactions/public', { key: sb.keys.otherWorkspace });
    expect(own.status).toBe(200);
    expect(own.body.interactions.map((c: { id: string }) => c.id)).toEqual([sb.seed.globexConversation]);
    const bots = await call(sb, 'GET', '/v2/bots/public', { key: sb.keys.otherWorkspace });
    expect(bots.body.map((b: { name: string }) => b.name)).toEqual(['Globex Helpdesk']);
  });

  it('updates last used only when a request authenticates', async () => {
    const rec = () => sb.state.keys.find((k) => k.name === 'readOnly')!;
    const revoked = () => sb.state.keys.find((k) => k.name === 'revoked')!;
    await call(sb, 'GET', '/v2/bots/public', { key: sb.keys.revoked });
    expect(revoked().lastUsed).toBeNull();
    await call(sb, 'GET', '/v2/bots/public', { key: sb.keys.readOnly });
    expect(rec().lastUsed).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe('routing and bodies', () => {
  it('404s unknown routes in NestJS style', async () => {
    const r = await call(sb, 'GET', '/v2/nope');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ statusCode: 404, message: 'Cannot GET /v2/nope', error: 'Not Found' });
    const m = await call(sb, 'PATCH', '/v2/bots/public');
    expect(m.status).toBe(404);
    expect(m.body.message).toBe('Cannot PATCH /v2/bots/public');
  });

  it('answers 400 for invalid JSON', async () => {
    const r = await call(sb, 'POST', '/v2/hc-interactions/events/public', { rawBody: '{"content": ' });
    expect(r.status).toBe(400);
    expect(r.body.statusCode).toBe(400);
    expect(r.body.error).toBe('Bad Request');
    expect(typeof r.body.message).toBe('string');
  });

  it('lists agents', async () => {
    const r = await call(sb, 'GET', '/v2/bots/public');
    expect(r.body).toEqual([
      expect.objectContaining({ id: sb.seed.bots.storeAssistant, name: 'Store Assistant', channels: ['chat'], isActive: true }),
      expect.objectContaining({ id: sb.seed.bots.emailSupport, name: 'Email Support', channels: ['email'], isActive: true }),
    ]);
    for (const b of r.body) expect(Object.keys(b).sort()).toEqual(['channels', 'createdAt', 'description', 'id', 'isActive', 'name']);
  });
});

describe('request recording and controls', () => {
  it('records every /v2 request with redacted authorization and final status', async () => {
    sb.clearRequests();
    await call(sb, 'GET', '/v2/bots/public', { query: { x: ['1', '2'] } });
    await call(sb, 'GET', '/v2/bots/public', { key: sb.keys.revoked });
    await call(sb, 'GET', '/v2/bots/public', { key: null });
    await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: { content: '' } });
    await call(sb, 'GET', '/__sandbox/info', { key: null });
    expect(sb.requests.map((r) => [r.method, r.path, r.status, r.keyName])).toEqual([
      ['GET', '/v2/bots/public', 200, 'admin'],
      ['GET', '/v2/bots/public', 401, 'revoked'],
      ['GET', '/v2/bots/public', 401, null],
      ['POST', '/v2/hc-interactions/events/public', 400, 'admin'],
    ]);
    const first = sb.requests[0];
    expect(first.query).toEqual({ x: ['1', '2'] });
    expect(first.headers.authorization).toBe('Bearer <redacted:admin>');
    expect(JSON.stringify(sb.requests)).not.toContain(sb.keys.admin);
    expect(sb.requests[3].body).toEqual({ content: '' });
  });

  it('exposes the controls over HTTP', async () => {
    const info = await call(sb, 'GET', '/__sandbox/info', { key: null });
    expect(info.body.url).toBe(sb.url);
    expect(info.body.keys).toEqual(sb.keys);
    await call(sb, 'DELETE', '/__sandbox/requests', { key: null });
    expect(sb.requests).toHaveLength(0);
    await call(sb, 'GET', '/v2/bots/public');
    const reqs = await call(sb, 'GET', '/__sandbox/requests', { key: null });
    expect(reqs.body).toHaveLength(1);
    const f = await call(sb, 'POST', '/__sandbox/faults', { key: null, body: [{ path: '/v2/bots/public', status: 503 }] });
    expect(f.status).toBe(200);
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(503);
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(200);
    await call(sb, 'POST', '/__sandbox/faults', { key: null, body: [{ path: '/v2/*', status: 500, times: 5 }] });
    await call(sb, 'DELETE', '/__sandbox/faults', { key: null });
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(200);
    const rl = await call(sb, 'POST', '/__sandbox/rate-limit', { key: null, body: { limit: 1, windowMs: 60_000 } });
    expect(rl.status).toBe(200);
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(200);
    expect((await call(sb, 'GET', '/v2/bots/public')).status).toBe(429);
    expect((await call(sb, 'GET', '/__sandbox/info', { key: null })).status).toBe(200); // controls are not throttled
    sb.setRateLimit(100_000, 60_000);
  });
});
