import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeRequest, madeUpKey, waitFor } from '../support/harness.js';
import { connectHttp, startHttpServerProcess, type HttpServerProcess } from '../support/http-harness.js';
import { childrenOf, memoryOf } from '../support/processes.js';
import { call, upstreamEnv, useStandaloneSandbox } from './support.js';

/**
 * Design §10.3 against dist/ over HTTP: one tenant cannot shut out another. Keys the API refuses get
 * 401 at initialize and no session (so they cannot fill the caps, even holding GET streams); an idle
 * session is closed even while it holds a GET stream; the per-key and total caps hold.
 */

const IDLE_MS = 1500;
const MADE_UP_KEYS = 30;
const PROTOCOL = '2025-06-18';

const sandbox = useStandaloneSandbox();

const rpcHeaders = (key: string, session?: string): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL,
  ...(session ? { 'mcp-session-id': session } : {}),
});

interface Opened {
  status: number;
  session?: string;
  body: string;
}

/** initialize, and when a session opens, notifications/initialized as a client would. */
async function initialize(url: string, key: string): Promise<Opened> {
  const response = await fetch(url, {
    method: 'POST',
    headers: rpcHeaders(key),
    body: JSON.stringify(initializeRequest('attacker')),
  });
  const body = await response.text();
  const session = response.headers.get('mcp-session-id') ?? undefined;
  if (session) await fetch(url, { method: 'POST', headers: rpcHeaders(key, session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  return { status: response.status, session, body };
}

interface Stream {
  /** Resolves when the server ends the stream (or it fails), with how. */
  ended: Promise<string>;
  close(): void;
}

/** The session's GET stream (server-to-client messages), held open for as long as the server keeps it. */
async function holdGetStream(url: string, key: string, session: string): Promise<Stream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { ...rpcHeaders(key, session), accept: 'text/event-stream' }, signal: abort.signal });
  if (response.status !== 200 || !response.body) throw new Error(`GET stream refused: ${response.status} ${await response.text()}`);
  const reader = response.body.getReader();
  const ended = (async () => {
    try {
      while (!(await reader.read()).done);
      return 'ended by the server';
    } catch (error) {
      return abort.signal.aborted ? 'closed by the test' : `failed: ${(error as Error).message}`;
    }
  })();
  return { ended, close: () => abort.abort() };
}

const within = <T>(promise: Promise<T>, ms: number, otherwise: T) => Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(otherwise), ms))]);

describe('§10.3 one tenant cannot shut out another', () => {
  let server: HttpServerProcess;
  const streams: Stream[] = [];

  beforeAll(async () => {
    // Idle sessions are not what this attack is about: they stay open for the whole test.
    server = await startHttpServerProcess({ env: { ...upstreamEnv(sandbox), SVC_API_KEY: '', SVC_MAX_SESSIONS: '6', SVC_MAX_SESSIONS_PER_KEY: '2' } });
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await server?.stop();
  });

  it(`${MADE_UP_KEYS} made-up keys (and a revoked one) get 401 at initialize and no session; the real tenant gets a session and a result`, async () => {
    await sandbox.clearRequests();
    const keys = [...Array.from({ length: MADE_UP_KEYS }, madeUpKey), sandbox.keys.revoked];
    const answers: Array<{ key: string; opened: Opened }> = [];
    // Three rounds, as an attacker retries: whatever session a key got, it holds with a GET stream.
    for (let round = 0; round < 3; round++) {
      for (const opened of await Promise.all(keys.map((key) => initialize(server.url, key)))) {
        const key = keys[answers.length % keys.length];
        answers.push({ key, opened });
        if (opened.session) streams.push(await holdGetStream(server.url, key, opened.session).catch(() => ({ ended: Promise.resolve('refused'), close: () => undefined })));
      }
    }

    const tenant = await connectHttp(server.url, { key: sandbox.keys.admin });
    const result = await call(tenant.client, 'list_agents');
    await tenant.close();
    expect(result.isError, "the real tenant's call").toBeFalsy();

    const opened = answers.filter((answer) => answer.opened.session);
    expect(opened.length, 'sessions opened for keys the API refuses').toBe(0);
    expect(answers.map((answer) => answer.opened.status)).toEqual(answers.map(() => 401));
    // The verdict is asked of the API (GET /v2/bots/public) and kept briefly: retries ask no more.
    const checks = (await sandbox.requests()).filter((request) => request.keyName !== 'admin');
    expect(
      checks.every((request) => request.method === 'GET' && request.path === '/v2/bots/public'),
      JSON.stringify(checks.map((request) => `${request.method} ${request.path}`)),
    ).toBe(true);
    expect(checks.length).toBeLessThanOrEqual(keys.length);
  });
});

describe('§10.3 idle sessions', () => {
  let server: HttpServerProcess;
  let stream: Stream | undefined;
  beforeAll(async () => {
    server = await startHttpServerProcess({ env: { ...upstreamEnv(sandbox), SVC_API_KEY: '', SVC_SESSION_IDLE_MS: String(IDLE_MS) } });
  });
  afterAll(async () => {
    stream?.close();
    await server?.stop();
  });

  it('an idle session is closed even while it holds an open GET stream', async () => {
    const { session } = await initialize(server.url, sandbox.keys.readOnly);
    expect(session).toBeDefined();
    stream = await holdGetStream(server.url, sandbox.keys.readOnly, session!);
    // Idle for SVC_SESSION_IDLE_MS, swept at most that long after: four times that is plenty.
    expect(await within(stream.ended, IDLE_MS * 4 + 2000, 'still open')).toBe('ended by the server');
    const after = await fetch(server.url, { method: 'POST', headers: rpcHeaders(sandbox.keys.readOnly, session), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(after.status).toBe(404);
  });
});

describe('§10.3 the per-key and total caps hold', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServerProcess({ env: { ...upstreamEnv(sandbox), SVC_API_KEY: '', SVC_MAX_SESSIONS: '4', SVC_MAX_SESSIONS_PER_KEY: '2' } });
  });
  afterAll(async () => server?.stop());

  it("a key at its cap gives up its own least recently used idle session, never another key's; 429 when every one of its sessions is busy; 503 at the total cap", async () => {
    const { admin, readOnly, otherWorkspace } = sandbox.keys;
    const listTools = (key: string, session?: string) =>
      fetch(server.url, { method: 'POST', headers: rpcHeaders(key, session), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    const [a1, a2] = [await initialize(server.url, admin), await initialize(server.url, admin)];
    expect([a1.status, a2.status]).toEqual([200, 200]);
    expect((await listTools(admin, a2.session)).status).toBe(200);
    // A third for the same key: a1, idle longest, makes room; the key never holds more than its cap.
    const a3 = await initialize(server.url, admin);
    expect(a3.status).toBe(200);
    expect((await listTools(admin, a1.session)).status).toBe(404);
    expect((await listTools(admin, a2.session)).status).toBe(200);
    const [r1, r2] = [await initialize(server.url, readOnly), await initialize(server.url, readOnly)];
    expect([r1.status, r2.status]).toEqual([200, 200]);
    // The total cap: another key is refused, and nobody else's session is closed for it.
    expect((await initialize(server.url, otherWorkspace)).status).toBe(503);
    for (const [key, opened] of [
      [readOnly, r1],
      [readOnly, r2],
      [admin, a2],
      [admin, a3],
    ] as const)
      expect((await listTools(key, opened.session)).status).toBe(200);
    // Both of the key's sessions in a call: there is nothing to give up, so a new one is refused.
    await sandbox.faults([{ method: 'GET', path: '/v2/bots/public', delayMs: 3000, times: 2 }]);
    const asked = (await sandbox.requests()).length;
    const busy = [a2, a3].map((opened) =>
      fetch(server.url, {
        method: 'POST',
        headers: rpcHeaders(admin, opened.session),
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_agents', arguments: {} } }),
      }),
    );
    // Both calls have reached the upstream, which holds each 3 s: both sessions are busy.
    await waitFor(async () => (await sandbox.requests()).slice(asked).filter((request) => request.path === '/v2/bots/public').length === 2, 'both calls to reach the upstream');
    expect((await initialize(server.url, admin)).status).toBe(429);
    await Promise.all(busy.map(async (response) => (await response).text()));
    await sandbox.clearFaults();
  });
});

describe("§14 one tenant's query cannot take the server down", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServerProcess({ env: { ...upstreamEnv(sandbox), SVC_API_KEY: '', SVC_MIRROR: 'memory', SVC_MIRROR_MAX_MB: '256' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("a statement that builds a 1.6 GB list in one engine call ends its own workspace's engine, not the server, and the other workspace answers on", async () => {
    const hostile = await connectHttp(server.url, { key: sandbox.keys.admin });
    const other = await connectHttp(server.url, { key: sandbox.keys.otherWorkspace });
    try {
      const count = { sql: 'SELECT count(*) AS n FROM agents' };
      expect((await call(hostile.client, 'query_workspace', count)).isError).toBeFalsy();
      const otherHeld = await call(other.client, 'query_workspace', count);
      expect(otherHeld.isError).toBeFalsy();
      // Each workspace's engine runs in a child of its own that was given no environment: no key, no secret.
      const hosts = childrenOf(server.child.pid!);
      expect(hosts).toHaveLength(2);
      for (const host of hosts) {
        const environment = readFileSync(`/proc/${host}/environ`, 'utf8').split('\0').filter(Boolean);
        expect(environment.map((entry) => entry.split('=')[0]).sort()).toEqual(['NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE']);
      }
      const [huge, meanwhile] = await Promise.all([call(hostile.client, 'query_workspace', { sql: 'SELECT len(range(200000000)) AS n' }), call(other.client, 'query_workspace', count)]);
      expect(huge.isError).toBe(true);
      expect(JSON.stringify(huge.content)).toMatch(/past its ceiling of 640 MB/);
      expect(meanwhile.structuredContent?.rows).toEqual(otherHeld.structuredContent?.rows);
      // The server's own peak: the list was built, and ended, elsewhere.
      const peakMb = memoryOf(server.child.pid!).peak;
      expect(peakMb).toBeLessThan(400);
      expect(server.child.exitCode).toBeNull();
      // In memory, the workspace's mirror is read again on the next question, and says why.
      const again = await call(hostile.client, 'conversation_stats', { since: '7d' });
      expect(again.isError).toBeFalsy();
      expect(JSON.stringify(again.content)).toMatch(/It had been stopped \(its engine's process reached \d+ MB/);
    } finally {
      await hostile.close();
      await other.close();
    }
  });
});
