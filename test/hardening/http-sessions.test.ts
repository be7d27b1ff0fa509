import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http/server.js';
import { acceptedKey, connect, initializeRequest, madeUpKey, sandboxEnv } from '../support/harness.js';
import { connectHttp } from '../support/http-harness.js';
import { useSandbox } from '../support/fixture.js';
import { freePort } from '../support/network.js';
import { RUN_ENV } from '../support/run-env.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const INITIALIZE = initializeRequest('attacker');

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function post(url: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

const sandbox = useSandbox();
let handle: HttpServerHandle;
const logLines: string[] = [];

/** A new key the sandbox accepts, so a test starts with no verdict cached for it and no session of it open. */
const validKey = () => acceptedKey(sandbox, 'test');

/** Opens a session and completes the handshake; returns the headers of requests on it. */
async function sessionOf(key: string): Promise<Record<string, string>> {
  const init = await post(handle.url, INITIALIZE, bearer(key));
  expect(init.status).toBe(200);
  const headers = { ...bearer(key), 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
  await post(handle.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

/** Opens the session's GET stream and resolves once it is open; `ended` resolves when the server ends it. */
function openStream(headers: Record<string, string>): Promise<{ ended: Promise<void>; request: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const request = http.request(handle.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } }, (response) => {
      expect(response.statusCode).toBe(200);
      const ended = new Promise<void>((done) => response.once('close', () => done()));
      response.resume();
      resolve({ ended, request });
    });
    request.on('error', reject);
    request.end();
  });
}

const sessionRequest = (headers: Record<string, string>, id = 2) => post(handle.url, { jsonrpc: '2.0', id, method: 'tools/list', params: {} }, headers);

beforeAll(async () => {
  const config = loadConfig(['--transport', 'http', '--http-port', '0'], {
    ...RUN_ENV,
    SVC_BASE_URL: sandbox.url,
    SVC_MAX_SESSIONS: '40',
    SVC_MAX_SESSIONS_PER_KEY: '3',
    SVC_SESSION_IDLE_MS: '60000',
  });
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  handle = await startHttpServer(await createRuntime(config, logger));
});

afterAll(async () => {
  await handle.shutdown('test done');
  agent.destroy();
});

describe('one tenant cannot shut out another (design 10.3)', () => {
  it('gives made-up keys no session and no slot, even 250 at once from one address while a real tenant connects from another, with memory bounded', async () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    sandbox.clearRequests();
    // Every made-up key in flight at once, each on its own connection, and the real tenant among them.
    const flood = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    // The flood comes from 127.0.0.1, the tenant from 127.0.0.2: checks of unknown keys take turns by client address.
    const attempt = (key: string, localAddress = '127.0.0.1') =>
      new Promise<Answer>((resolve, reject) => {
        const request = http.request(
          handle.url,
          { method: 'POST', agent: flood, localAddress, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer(key) } },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify(INITIALIZE));
      });
    const madeUp = Array.from({ length: 250 }, madeUpKey).map((key) => attempt(key));
    const tenant = attempt(validKey(), '127.0.0.2');
    const answers = await Promise.all(madeUp);
    const real = await tenant;
    flood.destroy();
    gc();
    const grown = process.memoryUsage().heapUsed - before;

    expect(real.status).toBe(200);
    expect(real.headers['mcp-session-id']).toBeTruthy();
    expect(answers.filter((answer) => answer.status === 200 || answer.headers['mcp-session-id'])).toEqual([]);
    // Refused by the API (401), or not checked because the API throttles unknown keys together (503): never a session.
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([401, 503]));
    expect(JSON.parse(answers.find((answer) => answer.status === 401)!.body).error.message).toContain('refused this key');
    expect(handle.sessions()).toBe(1);
    // One check per key, through the key's own budget.
    expect(sandbox.requests.length).toBeLessThanOrEqual(251);
    expect(grown).toBeLessThan(25 * 1024 * 1024);
  }, 60_000);

  it('answers a key the API refuses with 401 at initialize, without a session, and asks the API once per key', async () => {
    sandbox.clearRequests();
    const sessions = handle.sessions();
    for (let index = 0; index < 3; index++) {
      const refused = await post(handle.url, INITIALIZE, bearer(sandbox.keys.revoked));
      expect(refused.status).toBe(401);
      expect(refused.headers['mcp-session-id']).toBeUndefined();
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(JSON.parse(refused.body).error.message).toMatch(/refused this key as invalid or revoked.*"Authorization: Bearer svc_\.\.\."/);
    }
    expect(handle.sessions()).toBe(sessions);
    expect(sandbox.requests.map((request) => `${request.method} ${request.path} ${request.keyName}`)).toEqual(['GET /v2/bots/public revoked']);
  });

  it('checks a new key once however many initializes arrive at once', async () => {
    const key = validKey();
    sandbox.clearRequests();
    sandbox.injectFaults([{ path: '/v2/bots/public', delayMs: 300 }]);
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(handle.url, INITIALIZE, bearer(key))));
    expect(sandbox.requests).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(3);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
  });

  it('closes an idle session even while it holds an open GET stream, which frees its slot', async () => {
    handle.evictIdle(Date.now() + 60_001);
    await vi.waitFor(() => expect(handle.sessions()).toBe(0));
    const headers = await sessionOf(validKey());
    const stream = await openStream(headers);
    handle.evictIdle(Date.now() + 30_000);
    expect(handle.sessions()).toBe(1);
    handle.evictIdle(Date.now() + 60_001);
    await stream.ended;
    expect(handle.sessions()).toBe(0);
    expect((await sessionRequest(headers)).status).toBe(404);
  });

  it('keeps a session with a call in flight, and counts a call as activity', async () => {
    const key = validKey();
    const headers = await sessionOf(key);
    sandbox.clearRequests();
    sandbox.injectFaults([{ path: '/v2/bots/public', delayMs: 400 }]);
    const call = post(handle.url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_agents', arguments: {} } }, headers);
    await vi.waitFor(() => expect(sandbox.requests.at(-1)?.path).toBe('/v2/bots/public'));
    handle.evictIdle(Date.now() + 60_001);
    expect((await call).status).toBe(200);
    expect((await sessionRequest(headers)).status).toBe(200);
  });

  it("makes room for a key at its cap by closing that key's least recently used idle session, never another key's", async () => {
    const other = await sessionOf(validKey());
    const key = validKey();
    const sessions = [await sessionOf(key), await sessionOf(key), await sessionOf(key)];
    // The first is used last, so the second is the least recently used.
    expect((await sessionRequest(sessions[0])).status).toBe(200);
    await sessionOf(key);
    expect((await sessionRequest(sessions[1])).status).toBe(404);
    for (const kept of [sessions[0], sessions[2], other]) expect((await sessionRequest(kept)).status).toBe(200);
    expect(logLines.some((line) => line.includes('a newer session of the same key needed its place'))).toBe(true);
  });

  it('refuses a key at its cap with a 429 that says so when each of its sessions has a call in flight', async () => {
    const key = validKey();
    const sessions = [await sessionOf(key), await sessionOf(key), await sessionOf(key)];
    sandbox.injectFaults([{ path: '/v2/bots/public', delayMs: 600, times: 3 }]);
    sandbox.clearRequests();
    const calls = sessions.map((headers, index) => post(handle.url, { jsonrpc: '2.0', id: 10 + index, method: 'tools/call', params: { name: 'list_agents', arguments: {} } }, headers));
    await vi.waitFor(() => expect(sandbox.requests).toHaveLength(3));
    const refused = await post(handle.url, INITIALIZE, bearer(key));
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toContain('SVC_MAX_SESSIONS_PER_KEY');
    await Promise.all(calls);
  });

  it('serves 30 one-call clients in a row over HTTP, each leaving without DELETE, with a per-key cap of 3', async () => {
    const key = validKey();
    for (let index = 0; index < 30; index++) {
      const connection = await connectHttp(handle.url, { key });
      const result = await connection.call('list_agents');
      expect(result.isError, `client ${index + 1}`).toBeFalsy();
      // Like a process that exits: the transport goes away, the session is left open.
      await connection.close();
    }
    expect(handle.sessions()).toBeLessThanOrEqual(40);
  }, 30_000);

  it('makes no session for a key that fails the shape check, and asks the API nothing', async () => {
    sandbox.clearRequests();
    const sessions = handle.sessions();
    for (const key of ['svc_', 'svc_short', `svc_${'x'.repeat(300)}`, 'svc_bad key!', 'sk_live_0123456789abcdef']) {
      const answer = await post(handle.url, INITIALIZE, bearer(key));
      expect(answer.status).toBe(401);
      expect(answer.headers['mcp-session-id']).toBeUndefined();
    }
    expect(handle.sessions()).toBe(sessions);
    expect(sandbox.requests).toHaveLength(0);
  });
});

describe('an API that cannot be asked about a key', () => {
  it('answers 503 naming SVC_BASE_URL, not 401, and opens no session', async () => {
    const port = await freePort();
    const config = loadConfig(['--transport', 'http', '--http-port', '0', '--base-url', `http://127.0.0.1:${port}`], RUN_ENV);
    const unreachable = await startHttpServer(await createRuntime(config, pino({ level: 'silent' })));
    try {
      const answer = await post(unreachable.url, INITIALIZE, bearer(madeUpKey()));
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBeDefined();
      expect(JSON.parse(answer.body).error.message).toContain(`SVC_BASE_URL=http://127.0.0.1:${port}`);
      expect(unreachable.sessions()).toBe(0);
    } finally {
      await unreachable.shutdown('test done');
    }
  });
});

describe('long jobs (finding 6)', () => {
  async function openSession(): Promise<{ id: string; headers: Record<string, string> }> {
    // Slots of the earlier tests are freed first.
    handle.evictIdle(Date.now() + 60_001);
    await vi.waitFor(() => expect(handle.sessions()).toBe(0));
    const headers = bearer(sandbox.keys.admin);
    const init = await post(handle.url, INITIALIZE, headers);
    const id = String(init.headers['mcp-session-id']);
    const sessionHeaders = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    await post(handle.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders);
    return { id, headers: sessionHeaders };
  }

  /** Starts wait_for_refine_session on a refine session that will not finish, and resolves once it polls. */
  async function startLongJob(headers: Record<string, string>): Promise<http.ClientRequest> {
    const started = await fetch(`${sandbox.url}/__sandbox/refine`, {
      method: 'POST',
      body: JSON.stringify({ interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent, stepMs: 3_600_000 }),
    });
    expect(started.status).toBe(201);
    sandbox.clearRequests();
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'wait_for_refine_session', arguments: { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent, timeoutSeconds: 600 } },
    };
    const request = http.request(handle.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
    request.on('error', () => undefined);
    request.end(JSON.stringify(call));
    await vi.waitFor(() => expect(sandbox.requests.length).toBeGreaterThan(0), { timeout: 5_000 });
    return request;
  }

  const finished = () => logLines.filter((line) => line.includes('"tool":"wait_for_refine_session"') && line.includes('"msg":"tool call"')).length;

  it("stops when the request's connection goes away", async () => {
    const { headers } = await openSession();
    const before = finished();
    const request = await startLongJob(headers);
    request.destroy();
    await vi.waitFor(() => expect(finished()).toBe(before + 1), { timeout: 5_000 });
  }, 15_000);

  it('stops when its session is deleted', async () => {
    const { id, headers } = await openSession();
    const before = finished();
    await startLongJob(headers);
    const deleted = await new Promise<number>((resolve) => {
      http.request(handle.url, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': id } }, (response) => resolve(response.statusCode ?? 0)).end();
    });
    expect(deleted).toBe(200);
    await vi.waitFor(() => expect(finished()).toBe(before + 1), { timeout: 5_000 });
  }, 15_000);

  it('refuses task augmentation clearly where no later request could find the task', async () => {
    const { client, close } = await connect({ env: sandboxEnv(sandbox), engine: { elicitationAllowed: false, taskStore: null } });
    await expect(client.request({ method: 'tools/call', params: { name: 'export_conversations', arguments: {}, task: { ttl: 60_000 } } }, CreateTaskResultSchema)).rejects.toThrow(
      /does not support task creation/,
    );
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
    await close();
  });
});
