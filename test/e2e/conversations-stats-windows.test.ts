import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newConversation } from '../../src/sandbox/state.js';
import { splitWindow } from '../../tools/lib/scan.js';
import { apiRequests } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';

/*
 * Design 10.7: a window of any length is cut into slices the API accepts, and no conversation is
 * lost or counted twice at slice or page edges. Lengths near multiples of 90 days are where a
 * slicing by fixed steps leaves a slice of zero length (since = until), which the API refuses.
 */
const DAY = 86_400_000;
const SLICE = 90 * DAY;
const PAGE = 100;

const nearMultiples = fc.tuple(fc.integer({ min: 1, max: 4 }), fc.constantFrom(SLICE, SLICE + 1), fc.integer({ min: -2, max: 2 })).map(([k, step, offset]) => k * step + offset);
const windowLength = fc.oneof(nearMultiples, fc.integer({ min: 1, max: 4 * SLICE + 10 }));

/** The instants [since, until] that the slices cover, checked one slice at a time: the newest first, each ending 1 ms before the one after it starts. */
function coverage(slices: Array<{ since: number; until: number }>, since: number, until: number): string | undefined {
  let expectedEnd = until;
  for (const slice of slices) {
    if (slice.until !== expectedEnd) return `slice ends at ${slice.until}, expected ${expectedEnd}`;
    if (!(slice.since < slice.until)) return `slice ${slice.since}..${slice.until} is empty or of zero length`;
    if (slice.until - slice.since > SLICE) return `slice ${slice.since}..${slice.until} is longer than 90 days`;
    expectedEnd = slice.since - 1;
  }
  if (expectedEnd !== since - 1) return `slices stop at ${expectedEnd + 1}, expected ${since}`;
  if (slices.length !== Math.ceil((until - since + 1) / (SLICE + 1))) return `${slices.length} slices where ${Math.ceil((until - since + 1) / (SLICE + 1))} suffice`;
  return undefined;
}

describe('splitWindow', () => {
  it('cuts any window into the fewest slices the API accepts, covering every instant once', () => {
    fc.assert(
      fc.property(windowLength, (length) => {
        const until = 1_800_000_000_000;
        expect(coverage(splitWindow(until - length, until), until - length, until)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });
});

// Budgets out of the way: this file counts requests, it does not wait for them.
const { sandbox, call } = useServer({
  sandbox: { rateLimit: { limit: 1_000_000, windowMs: 60_000 } },
  env: { SVC_RATE_LIMIT: '1000000/60s', SVC_EXPORT_DIR: mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-windows-')) },
});

const listPages = () =>
  apiRequests(sandbox)
    .filter((request) => request.path === '/v2/hc-interactions/public')
    .map((request) => ({ botId: String(request.query.botId), since: Number(request.query.since), until: Number(request.query.until), status: request.status }));

describe('conversation_stats and export_conversations over windows of any length', () => {
  it('read every conversation once, those on slice and page edges included, at the request floor', async () => {
    const ws = sandbox.state.workspaces.get(sandbox.seed.workspaceA)!;
    const agents = [...ws.bots.keys()];
    const seeded = new Set(ws.conversations.keys());
    const until = Date.now() - 1000;
    await fc.assert(
      fc.asyncProperty(windowLength, fc.constantFrom(0, 99, 100, 101, 200), fc.nat(), async (length, crowd, pick) => {
        for (const id of ws.conversations.keys()) if (!seeded.has(id)) ws.conversations.delete(id);
        const since = until - length;
        sandbox.clearRequests();
        structured(await call('conversation_stats', { since, until }));
        // The slices, as the API saw them: each one's edges, and the instants just outside, get a conversation.
        const slices = [...new Map(listPages().map((page) => [`${page.since}-${page.until}`, page])).values()];
        expect(slices.every((page) => page.status === 200)).toBe(true);
        const edges = [since - 1, until + 1, ...slices.flatMap((slice) => [slice.since, slice.until])];
        const add = (createdAt: number, botId: string) => {
          const id = randomUUID();
          ws.conversations.set(id, newConversation({ id, createdAt, source: 'api', channel: 'chat', subjectPreview: null, companyId: ws.id, botId, touchedByService: true }));
        };
        edges.forEach((createdAt, index) => {
          add(createdAt, agents[index % agents.length]);
        });
        // A crowd of one agent's conversations at one slice edge, all with the same time: pages break inside ties.
        for (let n = 0; n < crowd; n++) add(edges[2 + (pick % (edges.length - 2))], agents[pick % agents.length]);

        const inWindow = [...ws.conversations.values()].filter((conversation) => conversation.touchedByService && conversation.createdAt >= since && conversation.createdAt <= until);
        sandbox.clearRequests();
        const stats = structured(await call('conversation_stats', { since, until }));
        expect(stats.count).toBe(inWindow.length);
        expect(Object.fromEntries(stats.groups.agent.map((group: { id: string; conversations: number }) => [group.id, group.conversations]))).toEqual(
          Object.fromEntries(agents.map((botId) => [botId, inWindow.filter((conversation) => conversation.botId === botId).length]).filter(([, count]) => count)),
        );
        const pages = listPages();
        expect(pages.every((page) => page.status === 200)).toBe(true);
        let floor = 1;
        for (const botId of agents) {
          for (const slice of slices) {
            const held = inWindow.filter((conversation) => conversation.botId === botId && conversation.createdAt >= slice.since && conversation.createdAt <= slice.until).length;
            floor += Math.max(1, Math.ceil(held / PAGE));
          }
        }
        expect(apiRequests(sandbox)).toHaveLength(floor);
        expect(stats.requests).toBe(floor);

        sandbox.clearRequests();
        const exported = structured(await call('export_conversations', { since, until, maxConversations: 100_000, outputFile: `${randomUUID()}.ndjson` }));
        const ids = (await readFile(exported.file, 'utf8'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).id as string);
        expect(ids.length).toBe(new Set(ids).size);
        expect(ids.sort()).toEqual(inWindow.map((conversation) => conversation.id).sort());
        expect(exported.requests).toBe(floor);
      }),
      // Lengths of k × (90 days + 1 ms) always run: a slicing by fixed steps ends them in a zero-length slice.
      {
        numRuns: 10,
        examples: [
          [SLICE + 1, 100, 0],
          [2 * (SLICE + 1), 101, 1],
          [3 * SLICE, 0, 2],
          [2 * SLICE - 1, 200, 3],
        ],
      },
    );
  });
});
