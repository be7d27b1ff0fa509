import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createMcpServer } from '../../src/engine/server.js';
import { createLogger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { apiRequests, caller, testClient, textOf, type Connection } from '../support/harness.js';
import { structured, useSandbox } from '../support/fixture.js';
import { RUN_ENV } from '../support/run-env.js';

const sandbox = useSandbox({ conversations: 400, rateLimit: 'off' });
const SECRET = 'mirror-secret-for-tests-0123456789abcdef';
const opened: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** One server process (one runtime, one mirror registry), as HTTP mode runs it for every client. */
async function startRuntime(env: Record<string, string> = {}): Promise<{ runtime: Runtime; logs: () => string }> {
  let logs = '';
  const config = loadConfig([], { ...RUN_ENV, SVC_TRANSPORT: 'http', SVC_BASE_URL: sandbox.url, SVC_RATE_LIMIT: '100000/60s', SVC_MIRROR: 'memory', SVC_LOG_LEVEL: 'info', ...env });
  const runtime = await createRuntime(
    config,
    createLogger(config.logLevel, 'json', {
      write: (line: string) => {
        logs += line;
      },
    }),
  );
  opened.push(() => runtime.close());
  return { runtime, logs: () => logs };
}

/** A client of `runtime` that brings its own key, as an HTTP client does. */
async function clientOf(runtime: Runtime, apiKey: string): Promise<Connection['call']> {
  const server = createMcpServer({ ...runtime, apiKey });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const { client } = testClient({});
  await client.connect(clientSide);
  opened.push(async () => {
    await client.close();
    await server.close();
  });
  return caller(client);
}

const conversationIds = (workspaceId: string) => new Set([...sandbox.state.workspaces.get(workspaceId)!.conversations.keys()]);
const messagesOf = (workspaceId: string) =>
  [...sandbox.state.workspaces.get(workspaceId)!.conversations.values()].flatMap((conversation) => conversation.events.map((event) => event.message ?? '')).filter((text) => text.length > 20);

describe("each workspace's mirror", () => {
  it('holds its own rows only: two keys of two workspaces on one server never see each other', async () => {
    const { runtime } = await startRuntime();
    const first = await clientOf(runtime, sandbox.keys.admin);
    const second = await clientOf(runtime, sandbox.keys.otherWorkspace);
    structured(await first('sync_workspace', {}));
    structured(await second('sync_workspace', {}));
    const idsOf = async (call: Connection['call']) => (structured(await call('query_workspace', { sql: 'SELECT id FROM conversations', maxRows: 1000 })).rows as string[][]).map(([id]) => id);
    const firstIds = await idsOf(first);
    const secondIds = await idsOf(second);
    const workspaceA = conversationIds(sandbox.seed.workspaceA);
    const workspaceB = conversationIds(sandbox.seed.workspaceB);
    expect(firstIds.length).toBeGreaterThan(0);
    expect(secondIds.length).toBeGreaterThan(0);
    expect(firstIds.every((id) => workspaceA.has(id))).toBe(true);
    expect(secondIds.every((id) => workspaceB.has(id))).toBe(true);
    // Nothing in SQL names another workspace's database: its own catalog is the only one.
    for (const sql of ['SELECT * FROM memory.main.conversations', 'SELECT * FROM system.main.conversations', 'SELECT * FROM temp.main.conversations']) {
      expect(textOf(await second(`query_workspace`, { sql })), sql).toMatch(/only this workspace's tables/);
    }
  });

  it('on disk: encrypted, one file per key, resumed after a restart with no request, unreadable under another secret', async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-mirror-'));
    const disk = { SVC_MIRROR: 'disk', SVC_MIRROR_SECRET: SECRET, SVC_STATE_DIR: stateDir };
    const before = await startRuntime(disk);
    const first = await clientOf(before.runtime, sandbox.keys.admin);
    const second = await clientOf(before.runtime, sandbox.keys.otherWorkspace);
    const synced = structured(await first('sync_workspace', {}));
    structured(await second('sync_workspace', {}));
    const files = readdirSync(path.join(stateDir, 'mirrors'));
    expect(files).toHaveLength(2);
    const bytes = files.map((file) => readFileSync(path.join(stateDir, 'mirrors', file)));
    // No message, no key, no id in the clear, in either file.
    for (const text of [...messagesOf(sandbox.seed.workspaceA).slice(0, 50), ...messagesOf(sandbox.seed.workspaceB).slice(0, 50), sandbox.keys.admin, sandbox.seed.workspaceA]) {
      for (const content of bytes) expect(content.includes(Buffer.from(text))).toBe(false);
    }
    for (const file of files) expect(file).not.toContain(sandbox.keys.admin.slice(4, 12));
    for (const close of opened.splice(0).reverse()) await close();

    sandbox.clearRequests();
    const after = await startRuntime(disk);
    const resumed = await clientOf(after.runtime, sandbox.keys.admin);
    const status = await resumed('sync_workspace', {});
    expect(structured(status).conversations).toBe(synced.conversations);
    // Fresh within SVC_MIRROR_MAX_AGE_MS: the knowledge is read again (4 requests and the agents), no conversation page.
    expect(apiRequests(sandbox).filter((request) => request.path === '/v2/hc-interactions/public')).toHaveLength(0);
    for (const close of opened.splice(0).reverse()) await close();

    const otherSecret = await startRuntime({ ...disk, SVC_MIRROR_SECRET: 'another-secret-of-at-least-32-characters!' });
    const fresh = await clientOf(otherSecret.runtime, sandbox.keys.admin);
    const stats = structured(await fresh('conversation_stats', { since: '30d' }));
    expect(stats.mirror).toBeDefined();
    // Under another secret the file has another name: the first one is never opened, and the mirror reads the API again.
    expect(stats.requests).toBeGreaterThan(1);
  });

  it('ends only its own engine when a statement outgrows its limits: the server and the other workspace answer on, and on disk the mirror reopens from its file', async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-mirror-'));
    const { runtime, logs } = await startRuntime({ SVC_MIRROR: 'disk', SVC_MIRROR_SECRET: SECRET, SVC_STATE_DIR: stateDir, SVC_MIRROR_MAX_MB: '256' });
    const hostile = await clientOf(runtime, sandbox.keys.admin);
    const other = await clientOf(runtime, sandbox.keys.otherWorkspace);
    structured(await hostile('sync_workspace', {}));
    structured(await other('sync_workspace', {}));
    const count = 'SELECT count(*) AS n FROM conversations';
    const held = structured(await hostile('query_workspace', { sql: count })).rows;
    const otherHeld = structured(await other('query_workspace', { sql: count })).rows;

    // One engine call builds a 1.6 GB list, outside the engine's memory limit and its interrupt: in
    // the server's process it would have taken every tenant down. The default time limit (30 s)
    // leaves its stop to the ceiling alone: a loaded CI run stopped it by a short limit first.
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampling = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
    const [huge, meanwhile] = await Promise.all([hostile('query_workspace', { sql: 'SELECT len(range(200000000)) AS n' }), other('query_workspace', { sql: count })]);
    clearInterval(sampling);
    expect(textOf(huge)).toMatch(/stopped: its engine's process reached \d+ MB, past its ceiling of 640 MB\. Only this workspace's mirror/);
    expect(structured(meanwhile).rows).toEqual(otherHeld);
    expect(peak - before).toBeLessThan(300 * 1024 * 1024);

    sandbox.clearRequests();
    expect(structured(await hostile('query_workspace', { sql: count })).rows).toEqual(held);
    expect(apiRequests(sandbox).filter((request) => request.path === '/v2/hc-interactions/public')).toHaveLength(0);
    expect(structured(await other('query_workspace', { sql: count })).rows).toEqual(otherHeld);
    expect(logs()).toMatch(/workspace mirror stopped/);
  });

  it('answers a revoked key nothing more once its verdict is older than SVC_MIRROR_MAX_AGE_MS, and forgets its mirror', async () => {
    const { runtime } = await startRuntime({ SVC_MIRROR_MAX_AGE_MS: '0' });
    const key = sandbox.keys.readOnly;
    const call = await clientOf(runtime, key);
    structured(await call('sync_workspace', { since: '30d' }));
    const record = sandbox.state.keys.find((candidate) => candidate.key === key)!;
    record.revoked = true;
    try {
      const refused = await call('query_workspace', { sql: 'SELECT count(*) FROM conversations' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/401|key/i);
      expect(await runtime.mirrors!.held(key)).toBeUndefined();
    } finally {
      record.revoked = false;
    }
  });
});
