import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedEntry } from '../support/built.js';
import { useStarted } from '../support/fixture.js';
import { claimsSent, connectProcess, waitFor } from '../support/harness.js';
import { connectHttp, startHttpServerProcess, type HttpConnection, type HttpServerProcess } from '../support/http-harness.js';
import { runRedisTests, startRedis, type RedisServer } from '../support/redis.js';
import { tokenFormArbitrary } from '../support/token-forms.js';
import { call, confirmTokenOf, upstreamEnv, useStandaloneSandbox } from './support.js';

/**
 * Design §10.1 against dist/: a confirmed write is sent at most once per token; only the exact
 * token sends; the spent record survives a restart (SVC_STATE_DIR) and is shared by a fleet (Redis).
 * The write is delete_conversation: its preview reads nothing, so every request to its route is the
 * write itself.
 */

const sandbox = useStandaloneSandbox();
let conversation = 0;
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const routeOf = (id: string) => `/v2/hc-interactions/${id}/public`;
const nextConversation = () => `conv-guarantee-${process.pid}-${conversation++}`;
async function writesTo(id: string): Promise<number> {
  return (await sandbox.requests()).filter((request) => request.method === 'DELETE' && request.path === routeOf(id)).length;
}
function stateDir(): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-guarantee-state-'));
  folders.push(folder);
  return folder;
}

describe('one stdio process', () => {
  const server = useStarted(
    () => connectProcess({ env: upstreamEnv(sandbox) }),
    (started) => started.close(),
  );

  async function preview(): Promise<{ id: string; token: string }> {
    const id = nextConversation();
    return { id, token: confirmTokenOf(await call(server.client, 'delete_conversation', { interactionId: id })) };
  }

  it('sends nothing for any re-encoding of a real token, before or after the token itself is used (80 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const { id, token } = await preview();
        const form = g(tokenFormArbitrary, token);
        const refused = await call(server.client, 'delete_conversation', { interactionId: id, confirm: form.text });
        expect(claimsSent(refused), `${form.name}: ${JSON.stringify(form.text)}`).toBe(false);
        expect(await writesTo(id), `${form.name} sent the write`).toBe(0);
        expect(claimsSent(await call(server.client, 'delete_conversation', { interactionId: id, confirm: token }))).toBe(true);
        const again = await call(server.client, 'delete_conversation', { interactionId: id, confirm: form.text });
        expect(claimsSent(again), `${form.name} after the token was spent`).toBe(false);
        expect(await writesTo(id), `${form.name} sent the write a second time`).toBe(1);
      }),
      { numRuns: 80, endOnFailure: true },
    );
  });

  it('writes once when the token and 9 re-encodings arrive at once (20 runs of 12 parallel calls)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const { id, token } = await preview();
        const confirms = [token, ...Array.from({ length: 9 }, () => g(tokenFormArbitrary, token).text), token, token];
        const results = await Promise.all(confirms.map((confirm) => call(server.client, 'delete_conversation', { interactionId: id, confirm })));
        expect(await writesTo(id)).toBe(1);
        const senders = results.flatMap((result, index) => (claimsSent(result) ? [confirms[index]] : []));
        expect(senders).toEqual([token]);
      }),
      { numRuns: 20, endOnFailure: true },
    );
  });
});

describe('across a restart, with SVC_CONFIRM_SECRET and SVC_STATE_DIR', () => {
  const secret = 'guarantee-secret-6f1c0a9e2b7d4c3a8e5f';

  it('a token spent before a clean restart sends nothing after it', async () => {
    const env = upstreamEnv(sandbox, { SVC_CONFIRM_SECRET: secret, SVC_STATE_DIR: stateDir() });
    const first = await connectProcess({ env });
    const id = nextConversation();
    const token = confirmTokenOf(await call(first.client, 'delete_conversation', { interactionId: id }));
    expect(claimsSent(await call(first.client, 'delete_conversation', { interactionId: id, confirm: token }))).toBe(true);
    await first.close();

    const second = await connectProcess({ env });
    const retried = await call(second.client, 'delete_conversation', { interactionId: id, confirm: token });
    await second.close();
    expect(claimsSent(retried)).toBe(false);
    expect(await writesTo(id)).toBe(1);
  });

  it('a token whose write was in flight when the process was killed (SIGKILL) sends nothing after the restart', async () => {
    const env = upstreamEnv(sandbox, { SVC_CONFIRM_SECRET: secret, SVC_STATE_DIR: stateDir() });
    const first = await connectProcess({ env });
    const id = nextConversation();
    const token = confirmTokenOf(await call(first.client, 'delete_conversation', { interactionId: id }));
    // The API holds the write for a while: the process dies with it in flight.
    await sandbox.faults([{ method: 'DELETE', path: routeOf(id), delayMs: 30_000 }]);
    const inFlight = call(first.client, 'delete_conversation', { interactionId: id, confirm: token }).catch(() => undefined);
    await waitFor(async () => (await writesTo(id)) === 1, 'the write to reach the API');
    process.kill(first.pid!, 'SIGKILL');
    await inFlight;
    await first.close().catch(() => undefined);

    const second = await connectProcess({ env });
    const retried = await call(second.client, 'delete_conversation', { interactionId: id, confirm: token });
    const variant = await call(second.client, 'delete_conversation', { interactionId: id, confirm: ` ${token}` });
    await second.close();
    await sandbox.clearFaults();
    expect(claimsSent(retried)).toBe(false);
    expect(claimsSent(variant)).toBe(false);
    expect(await writesTo(id)).toBe(1);
  });

  it('with a state folder it cannot use, the server refuses to start with that secret and says why', () => {
    const notAFolder = path.join(stateDir(), 'a-file');
    writeFileSync(notAFolder, '');
    const start = spawnSync(process.execPath, [shippedEntry()], {
      env: { PATH: process.env.PATH ?? '', ...upstreamEnv(sandbox, { SVC_CONFIRM_SECRET: secret, SVC_STATE_DIR: notAFolder }) },
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(start.status).not.toBe(0);
    expect(start.stderr).toContain('SVC_STATE_DIR');
  });
});

describe.skipIf(!runRedisTests())('across two HTTP processes sharing Redis (SVC_REDIS_URL), one of them stateless', () => {
  let redis: RedisServer;
  let nodes: HttpServerProcess[];
  let clients: HttpConnection[];

  beforeAll(async () => {
    redis = await startRedis();
    const env = upstreamEnv(sandbox, { SVC_REDIS_URL: redis.url, SVC_CONFIRM_SECRET: 'fleet-secret-0b8e4f7a1c9d2e6f3a5b' });
    // One node with sessions, one stateless, as a fleet may mix them behind a load balancer.
    nodes = await Promise.all([startHttpServerProcess({ env }), startHttpServerProcess({ env, args: ['--stateless'] })]);
    clients = await Promise.all(nodes.map((node) => connectHttp(node.url)));
  });
  afterAll(async () => {
    await Promise.all((clients ?? []).map((client) => client.close().catch(() => undefined)));
    await Promise.all((nodes ?? []).map((node) => node.stop()));
    await redis?.stop();
  });

  it('a token previewed on one node and sent on the other sends once; neither sends it again', async () => {
    const [a, b] = clients;
    const id = nextConversation();
    const token = confirmTokenOf(await call(a.client, 'delete_conversation', { interactionId: id }));
    expect(claimsSent(await call(b.client, 'delete_conversation', { interactionId: id, confirm: token }))).toBe(true);
    expect(claimsSent(await call(a.client, 'delete_conversation', { interactionId: id, confirm: token }))).toBe(false);
    expect(claimsSent(await call(b.client, 'delete_conversation', { interactionId: id, confirm: token }))).toBe(false);
    expect(await writesTo(id)).toBe(1);
  });

  it('the token and its re-encodings sent to both nodes at once write once (10 runs of 12 parallel calls)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const id = nextConversation();
        const token = confirmTokenOf(await call(clients[0].client, 'delete_conversation', { interactionId: id }));
        const confirms = [token, token, ...Array.from({ length: 8 }, () => g(tokenFormArbitrary, token).text), token, token];
        const results = await Promise.all(confirms.map((confirm, index) => call(clients[index % 2].client, 'delete_conversation', { interactionId: id, confirm })));
        expect(await writesTo(id)).toBe(1);
        expect(results.flatMap((result, index) => (claimsSent(result) ? [confirms[index]] : []))).toEqual([token]);
      }),
      { numRuns: 10, endOnFailure: true },
    );
  });
});

describe('§16 a fleet without Redis: one SVC_CONFIRM_SECRET, each node its own state folder (issue 32)', () => {
  it('sends a token once, through the node that issued it: two other stdio nodes and two stateless HTTP nodes refuse it and say why', async () => {
    const secret = 'fleet-without-redis-secret-0123456789abcdef';
    const stdio = await Promise.all([0, 1, 2].map(() => connectProcess({ env: upstreamEnv(sandbox, { SVC_CONFIRM_SECRET: secret, SVC_STATE_DIR: stateDir() }) })));
    const http = await Promise.all([0, 1].map(() => startHttpServerProcess({ env: upstreamEnv(sandbox, { SVC_CONFIRM_SECRET: secret, SVC_STATE_DIR: stateDir(), SVC_STATELESS: 'true' }) })));
    const httpClients = await Promise.all(http.map((server) => connectHttp(server.url, { key: sandbox.keys.admin })));
    try {
      const id = nextConversation();
      const token = confirmTokenOf(await call(stdio[0].client, 'delete_conversation', { interactionId: id }));
      const clients = [...stdio.map((node) => node.client), ...httpClients.map((node) => node.client)];
      const results = await Promise.all(clients.flatMap((client) => [client, client]).map((client) => call(client, 'delete_conversation', { interactionId: id, confirm: token })));
      const reasons = results.map((result) => (claimsSent(result) ? 'sent' : (result.structuredContent as { refused?: string }).refused));
      expect(await writesTo(id)).toBe(1);
      expect(reasons.filter((reason) => reason === 'sent')).toHaveLength(1);
      expect(reasons.filter((reason) => reason === 'elsewhere')).toHaveLength(8);
      const elsewhere = results.find((result) => (result.structuredContent as { refused?: string }).refused === 'elsewhere')!;
      expect(JSON.stringify(elsewhere.content)).toMatch(/issued by another server, whose spent store \([0-9a-f]{12}\)/);
      // Each stateless node said at start that its tokens send through it alone.
      for (const server of http) expect(server.stderr()).toContain('SVC_STATELESS without SVC_REDIS_URL');
    } finally {
      await Promise.all([...stdio, ...httpClients].map((node) => node.close()));
      await Promise.all(http.map((server) => server.stop()));
    }
  }, 60_000);
});
