import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequests } from '../support/harness.js';
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
