import http from 'node:http';
import { randomBytes } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { createMcpServer } from '../../src/engine/server.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } } };

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

const randomKey = () => `svc_${randomBytes(16).toString('hex')}`;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let sandbox: Sandbox;
let runtime: Runtime;
let handle: HttpServerHandle;
const logLines: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  const config = loadConfig(['--transport', 'http', '--http-port', '0'], {
    SVC_BASE_URL: sandbox.url,
    SVC_MAX_SESSIONS: '40',
    SVC_MAX_SESSIONS_PER_KEY: '3',
    SVC_SESSION_IDLE_MS: '60000',
  });
  const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
  runtime = await createRuntime(config, logger);
  handle = await startHttpServer(runtime);
});

afterAll(async () => {
  await handle.shutdown('test done');
  agent.destroy();
  await sandbox.close();
});

describe('HTTP sessions (finding 5)', () => {
  it('keeps memory bounded under 3,000 session attempts with made-up keys, saying why in a 503', async () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const statuses = new Map<number, number>();
    let refusal = '';
    const keys = Array.from({ length: 3_000 }, randomKey);
    for (let start = 0; start < keys.length; start += 16) {
      const answers = await Promise.all(keys.slice(start, start + 16).map((key) => post(handle.url, INITIALIZE, bearer(key))));
      for (const answer of answers) {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 503) refusal = answer.body;
      }
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(statuses.get(200)).toBe(40);
    expect(statuses.get(503)).toBe(2_960);
    expect(handle.sessions()).toBe(40);
    expect(JSON.parse(refusal)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('SVC_MAX_SESSIONS') } });
    // 40 sessions of about 80 KB each, not 3,000.
    expect(grown).toBeLessThan(25 * 1024 * 1024);
    expect(sandbox.requests).toHaveLength(0);
  }, 60_000);

  it('evicts idle sessions, which frees their slots', async () => {
    handle.evictIdle(Date.now() + 60_001);
    await vi.waitFor(() => expect(handle.sessions()).toBe(0));
    expect((await post(handle.url, INITIALIZE, bearer(randomKey()))).status).toBe(200);
  });

  it('caps sessions per key with a 429 that says so', async () => {
    const key = randomKey();
    for (let index = 0; index < 3; index++) expect((await post(handle.url, INITIALIZE, bearer(key))).status).toBe(200);
    const refused = await post(handle.url, INITIALIZE, bearer(key));
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toContain('SVC_MAX_SESSIONS_PER_KEY');
  });

  it('makes no session for a key that fails the shape check', async () => {
    const sessions = handle.sessions();
    for (const key of ['svc_', 'svc_short', `svc_${'x'.repeat(300)}`, 'svc_bad key!', 'sk_live_0123456789abcdef']) {
      const answer = await post(handle.url, INITIALIZE, bearer(key));
      expect(answer.status).toBe(401);
      expect(answer.headers['mcp-session-id']).toBeUndefined();
    }
    expect(handle.sessions()).toBe(sessions);
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
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait_for_refine_session', arguments: { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent, timeoutSeconds: 600 } } };
    const request = http.request(handle.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
    request.on('error', () => undefined);
    request.end(JSON.stringify(call));
    await vi.waitFor(() => expect(sandbox.requests.length).toBeGreaterThan(0), { timeout: 5_000 });
    return request;
  }

  const finished = () => logLines.filter((line) => line.includes('"tool":"wait_for_refine_session"') && line.includes('"msg":"tool call"')).length;

  it('stops when the request\'s connection goes away', async () => {
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
    const server = createMcpServer({ ...runtime, apiKey: sandbox.keys.admin, elicitationAllowed: false, taskStore: null });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'stateless', version: '1' });
    await client.connect(clientSide);
    await expect(
      client.request({ method: 'tools/call', params: { name: 'export_conversations', arguments: {}, task: { ttl: 60_000 } } }, CreateTaskResultSchema),
    ).rejects.toThrow(/does not support task creation/);
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
    await client.close();
  });
});
