import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequests, connect, sandboxEnv, waitFor } from '../support/harness.js';
import { structured, useSandbox } from '../support/fixture.js';
import { connectThroughProxy, startFleet, type Fleet } from './fleet.js';

/**
 * `npm run test:fleet` (CI): three stateless nodes with the workspace mirror, behind HAProxy routing
 * a key to one node (`balance hdr(Authorization)`), as src/fleet/FLEET.md recommends. A workspace is
 * read once, whichever session asks: every later question, in a new session each, is answered from
 * that node's mirror without a page.
 */

const sandbox = useSandbox({ conversations: 2000, rateLimit: { limit: 1000, windowMs: 60_000 } });
let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet(sandbox, { nodes: 3, balance: 'hdr(Authorization)', env: { SVC_MIRROR: 'memory', SVC_RATE_LIMIT: '1000/60s' } });
});

afterAll(async () => {
  await fleet?.stop();
});

const pages = () => apiRequests(sandbox).filter((request) => request.path === '/v2/hc-interactions/public');

describe('a fleet with the mirror', () => {
  it('reads a workspace once across three nodes: every session of the key lands on the node that holds it', async () => {
    sandbox.clearRequests();
    const nodes = new Set<string>();
    const counts: number[] = [];
    let afterFirst = 0;
    for (let session = 0; session < 6; session++) {
      const client = await connectThroughProxy(fleet.proxy.url, sandbox.keys.admin);
      const data = structured(await client.call('conversation_stats', { since: '365d', groupBy: ['agent', 'month'] }));
      counts.push(data.total.conversations);
      expect(data.mirror).toBeDefined();
      for (const entry of client.served) nodes.add(entry.node);
      await client.close();
      if (session === 0) afterFirst = pages().length;
    }
    expect(nodes.size).toBe(1);
    expect(afterFirst).toBeGreaterThan(0);
    // The first session's sync read each page once; the five sessions after it read none.
    expect(pages()).toHaveLength(afterFirst);
    const read = pages();
    expect(new Set(read.map((request) => `${request.query.botId}|${request.query.since}|${request.query.cursor ?? ''}`)).size).toBe(read.length);
    expect(new Set(counts).size).toBe(1);
  });
});

describe('a sync against a strict upstream, on real time', () => {
  const strict = useSandbox({ conversations: 4000, rateLimit: { limit: 20, windowMs: 2000 } });

  it("costs no 429, lets a person's call through at once, and keeps what it read when cancelled", async () => {
    const connection = await connect({ env: { ...sandboxEnv(strict), SVC_MIRROR: 'memory', SVC_RATE_LIMIT: '20/2s' } });
    try {
      strict.clearRequests();
      const controller = new AbortController();
      const sync = connection.call('sync_workspace', {}, { signal: controller.signal, timeout: 120_000 }).catch((error: unknown) => error);
      // Once the sync has spent the first window's budget, a person's call goes ahead of every waiting page.
      await waitFor(() => strict.requests.filter((request) => request.path === '/v2/hc-interactions/public').length >= 15, 'the sync to spend its first window');
      const started = Date.now();
      structured(await connection.call('list_agents', {}));
      const waited = Date.now() - started;
      // Its own cost plus at most one page: the reserve keeps a slot free for it (a page here takes well under 500 ms).
      expect(waited).toBeLessThan(500);
      await waitFor(() => strict.requests.filter((request) => request.path === '/v2/hc-interactions/public').length >= 25, 'more pages', 30_000);
      controller.abort();
      await sync;
      const read = strict.requests.filter((request) => request.path === '/v2/hc-interactions/public').length;
      expect(strict.requests.filter((request) => request.status === 429)).toHaveLength(0);
      const status = await connection.client.readResource({ uri: 'svc://mirror/status' });
      const held = Number(/^Held: (\d+) conversations/m.exec(String((status.contents[0] as { text: string }).text))?.[1]);
      expect(held).toBeGreaterThan(0);
      // The next sync reads what the cancelled one did not: fewer pages than a sync from nothing.
      strict.clearRequests();
      structured(await connection.call('sync_workspace', {}, { timeout: 120_000 }));
      const rest = strict.requests.filter((request) => request.path === '/v2/hc-interactions/public').length;
      expect(strict.requests.filter((request) => request.status === 429)).toHaveLength(0);
      expect(rest).toBeGreaterThan(0);
      // A sync from nothing, on a fresh server: the resumed one read less than that.
      const fresh = await connect({ env: { ...sandboxEnv(strict), SVC_MIRROR: 'memory', SVC_RATE_LIMIT: '20/2s' } });
      strict.clearRequests();
      structured(await fresh.call('sync_workspace', {}, { timeout: 120_000 }));
      await fresh.close();
      const whole = strict.requests.filter((request) => request.path === '/v2/hc-interactions/public').length;
      expect(rest).toBeLessThan(whole);
      expect(read + rest).toBeGreaterThanOrEqual(whole);
    } finally {
      await connection.close();
    }
  });
});
