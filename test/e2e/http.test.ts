import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { answering, apiRequests, callAsTask, initializeRequest, textOf } from '../support/harness.js';
import { connectHttp, startHttpServerProcess, type HttpConnection, type HttpServerProcess } from '../support/http-harness.js';
import { useSandbox } from '../support/fixture.js';

const sandbox = useSandbox();
/** Stateful, no key of its own: every client brings its key. */
let multiTenant: HttpServerProcess;
/** Stateless, with SVC_API_KEY: keyless clients are served with it. */
let stateless: HttpServerProcess;
const open: HttpConnection[] = [];

const INITIALIZE = initializeRequest('raw');

async function rawPost(server: HttpServerProcess, headers: Record<string, string>, body: unknown = INITIALIZE) {
  const response = await request(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) as { jsonrpc: string; error: { code: number; message: string } } };
}

async function connect(server: HttpServerProcess, options: Parameters<typeof connectHttp>[1] = {}) {
  const connection = await connectHttp(server.url, options);
  open.push(connection);
  return connection;
}

beforeAll(async () => {
  [multiTenant, stateless] = await Promise.all([
    startHttpServerProcess({ env: { SVC_BASE_URL: sandbox.url } }),
    startHttpServerProcess({ env: { SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin }, args: ['--stateless'] }),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all(open.map((connection) => connection.close().catch(() => undefined)));
  await Promise.all([multiTenant?.stop(), stateless?.stop()]);
});

describe('Streamable HTTP transport', () => {
  it("sends each client's upstream calls with that client's key and no other", async () => {
    const admin = await connect(multiTenant, { key: sandbox.keys.admin });
    const readOnly = await connect(multiTenant, { key: sandbox.keys.readOnly });
    // Interleaved and concurrent; the limit tells the two clients' requests apart upstream.
    const calls = Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? admin.call('list_conversations', { limit: 7 }) : readOnly.call('list_conversations', { limit: 9 })));
    const results = await Promise.all(calls);
    expect(results.filter((result) => result.isError)).toEqual([]);
    // Each key was also checked once when its session opened (GET /v2/bots/public).
    const requests = apiRequests(sandbox).filter((entry) => entry.path !== '/v2/bots/public');
    expect(requests).toHaveLength(40);
    expect(requests.filter((entry) => entry.query.limit === '7').map((entry) => entry.keyName)).toEqual(Array(20).fill('admin'));
    expect(requests.filter((entry) => entry.query.limit === '9').map((entry) => entry.keyName)).toEqual(Array(20).fill('readOnly'));
    expect(multiTenant.stderr()).not.toContain(sandbox.keys.admin);
    expect(multiTenant.stderr()).not.toContain(sandbox.keys.readOnly);
    expect(multiTenant.stderr()).toMatch(/"msg":"http request"/);
  }, 30_000);

  it('keeps a session bound to the key that created it', async () => {
    const admin = await connect(multiTenant, { key: sandbox.keys.admin });
    const sessionId = admin.transport.sessionId!;
    expect(sessionId).toBeTruthy();
    const hijack = await rawPost(
      multiTenant,
      { authorization: `Bearer ${sandbox.keys.readOnly}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    );
    expect(hijack.status).toBe(403);
    expect(hijack.json().error.message).toContain('another API key');
    const keyless = await rawPost(multiTenant, { 'mcp-session-id': sessionId }, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect(keyless.status).toBe(401);
    expect(apiRequests(sandbox)).toHaveLength(0);
  });

  it('refuses a foreign Host and a foreign Origin, and accepts loopback ones', async () => {
    const foreignHost = await rawPost(multiTenant, { host: 'evil.example.com', authorization: `Bearer ${sandbox.keys.admin}` });
    expect(foreignHost.status).toBe(403);
    expect(foreignHost.json().error.message).toContain('Host');
    const wrongPort = await rawPost(multiTenant, { host: 'localhost:1', authorization: `Bearer ${sandbox.keys.admin}` });
    expect(wrongPort.status).toBe(403);
    const foreignOrigin = await rawPost(multiTenant, { origin: 'https://evil.example.com', authorization: `Bearer ${sandbox.keys.admin}` });
    expect(foreignOrigin.status).toBe(403);
    expect(foreignOrigin.json().error.message).toContain('Origin');
    const local = await rawPost(multiTenant, {
      host: `localhost:${multiTenant.port}`,
      origin: `http://localhost:${multiTenant.port}`,
      authorization: `Bearer ${sandbox.keys.admin}`,
    });
    expect(local.status).toBe(200);
    expect(local.headers['mcp-session-id']).toBeTruthy();
  });

  it('answers a request without a usable key with 401 and a JSON-RPC error, before any MCP work', async () => {
    const none = await rawPost(multiTenant, {});
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer\b/);
    expect(none.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.stringContaining('Authorization') } });
    expect(none.headers['mcp-session-id']).toBeUndefined();
    const malformed = await rawPost(multiTenant, { authorization: 'Bearer not-a-key' });
    expect(malformed.status).toBe(401);
    expect(malformed.json().error.message).toContain('svc_');
    const basic = await rawPost(multiTenant, { authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
    // The SDK client surfaces the 401 as a failed connect.
    await expect(connectHttp(multiTenant.url)).rejects.toThrow();
    expect(apiRequests(sandbox)).toHaveLength(0);
  });

  it('serves a keyless client with SVC_API_KEY when the server has one', async () => {
    const keyless = await connect(stateless);
    // The server's key was checked when the client connected; the call's request follows.
    sandbox.clearRequests();
    const result = await keyless.call('list_agents');
    expect(result.isError).toBeFalsy();
    expect(apiRequests(sandbox).map((entry) => entry.keyName)).toEqual(['admin']);
    // A client bringing its own key still uses its own.
    const own = await connect(stateless, { key: sandbox.keys.readOnly });
    sandbox.clearRequests();
    expect((await own.call('list_agents')).isError).toBeFalsy();
    expect(apiRequests(sandbox).map((entry) => entry.keyName)).toEqual(['readOnly']);
  });

  it('asks for confirmation through elicitation over a stateful session', async () => {
    const messages: string[] = [];
    const admin = await connect(multiTenant, { key: sandbox.keys.admin, elicit: answering(messages, { action: 'accept', content: { confirm: true } }) });
    const list = await admin.call('list_conversations', { limit: 1 });
    const id = (list.structuredContent as { interactions: Array<{ id: string }> }).interactions[0].id;
    sandbox.clearRequests();
    const deleted = await admin.call('delete_conversation', { interactionId: id });
    expect(deleted.isError).toBeFalsy();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(`DELETE /v2/hc-interactions/${id}/public`);
    expect(apiRequests(sandbox).map((entry) => `${entry.method} ${entry.path} ${entry.keyName}`)).toEqual([`DELETE /v2/hc-interactions/${id}/public admin`]);
  }, 15_000);

  it('keeps progress, log messages and tasks working over a session', async () => {
    const admin = await connect(multiTenant, { key: sandbox.keys.admin });
    const logs: string[] = [];
    admin.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(String(notification.params.data));
    });
    const progress: number[] = [];
    const exported = await admin.call(
      'export_conversations',
      { since: '100d', maxConversations: 20 },
      {
        onprogress: (update) => progress.push(update.progress),
      },
    );
    expect(exported.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThan(0);

    sandbox.injectFaults([{ path: '/v2/bots/public', status: 429 }]);
    expect((await admin.call('list_agents')).isError).toBeFalsy();
    expect(logs.some((line) => line.startsWith('list_agents:') && line.includes('429'))).toBe(true);

    const { kinds, result: final } = await callAsTask(admin.client, 'export_conversations', { since: '100d', maxConversations: 20 });
    expect(kinds[0]).toBe('taskCreated');
    expect(final?.isError).toBeFalsy();
    expect(apiRequests(sandbox).every((entry) => entry.keyName === 'admin')).toBe(true);
  }, 20_000);

  it('falls back to a preview and its confirmToken in stateless mode', async () => {
    const asked: string[] = [];
    const client = await connect(stateless, { elicit: answering(asked, { action: 'accept', content: { confirm: true } }) });
    const list = await client.call('list_conversations', { limit: 1 });
    const id = (list.structuredContent as { interactions: Array<{ id: string }> }).interactions[0].id;
    sandbox.clearRequests();
    const preview = await client.call('delete_conversation', { interactionId: id });
    expect(preview.isError).toBeFalsy();
    expect(preview.structuredContent).toMatchObject({ sent: false });
    const { confirmToken } = preview.structuredContent as { confirmToken: string };
    expect(textOf(preview)).toContain(`"confirm": "${confirmToken}"`);
    expect(apiRequests(sandbox)).toHaveLength(0);
    const confirmed = await client.call('delete_conversation', { interactionId: id, confirm: confirmToken });
    expect(confirmed.isError).toBeFalsy();
    expect(apiRequests(sandbox).map((entry) => `${entry.method} ${entry.path}`)).toEqual([`DELETE /v2/hc-interactions/${id}/public`]);
    expect(asked).toEqual([]);
    // No session id in stateless mode; GET streams are not offered.
    expect(client.transport.sessionId).toBeUndefined();
    const get = await request(stateless.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    await get.body.text();
    expect(get.statusCode).toBe(405);
  }, 15_000);

  it('checks the Host on every route, and refuses a loopback Origin of another port', async () => {
    for (const path of ['/healthz', '/readyz', '/nowhere', '/.well-known/oauth-authorization-server']) {
      const foreign = await request(`${multiTenant.base}${path}`, { headers: { host: 'evil.example.com' } });
      expect(foreign.statusCode, path).toBe(403);
      expect(await foreign.body.text()).toContain('Host');
    }
    // A load balancer's probe speaking HTTP/1.0 sends no Host at all (no browser does): it is answered.
    const probe = await new Promise<string>((resolve, reject) => {
      let answer = '';
      const socket = net.connect(multiTenant.port, '127.0.0.1', () => socket.end('GET /readyz HTTP/1.0\r\n\r\n'));
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });
    expect(probe).toMatch(/^HTTP\/1\.1 200/);
    const otherPort = await rawPost(multiTenant, { origin: `http://localhost:${multiTenant.port + 1}`, authorization: `Bearer ${sandbox.keys.admin}` });
    expect(otherPort.status).toBe(403);
    expect(otherPort.json().error.message).toContain('SVC_ALLOWED_ORIGINS');
  });

  it('reports health without auth', async () => {
    const response = await request(`${multiTenant.base}/healthz`);
    const body = (await response.body.json()) as Record<string, unknown>;
    expect(response.statusCode).toBe(200);
    expect(body).toMatchObject({ ok: true, version: '0.1.0', stateless: false });
    expect(body.sessions).toBeGreaterThanOrEqual(1);
    expect(body).not.toHaveProperty('redis');
    const statelessHealth = (await (await request(`${stateless.base}/healthz`)).body.json()) as Record<string, unknown>;
    expect(statelessHealth).toMatchObject({ ok: true, stateless: true, sessions: 0 });
  });

  it('on SIGTERM finishes the call in flight, then exits 0', async () => {
    const server = await startHttpServerProcess({ env: { SVC_BASE_URL: sandbox.url } });
    try {
      const client = await connectHttp(server.url, { key: sandbox.keys.admin });
      sandbox.clearRequests();
      sandbox.injectFaults([{ path: '/v2/bots/public', delayMs: 800 }]);
      let answered = false;
      const pending = client.call('list_agents').finally(() => (answered = true));
      // The request has reached the upstream (recorded on arrival), so the call is in flight.
      while (!apiRequests(sandbox).some((entry) => entry.path === '/v2/bots/public')) await new Promise((resolve) => setTimeout(resolve, 10));
      // The signal comes while the call is unanswered: what it finishes is the call in flight.
      expect(answered).toBe(false);
      server.child.kill('SIGTERM');
      const result = await pending;
      expect(result.isError).toBeFalsy();
      expect(await server.exited).toBe(0);
      expect(server.stderr()).toContain('shutting down');
      await client.close().catch(() => undefined);
    } finally {
      await server.stop();
    }
  }, 20_000);
});
