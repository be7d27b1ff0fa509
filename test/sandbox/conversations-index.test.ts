/**
 * The list route pages from indices (src/sandbox/conversation-store.ts). Whatever the filters
 * and the cursor, a page must equal what filtering and sorting every conversation gives: the
 * reference below is that brute force, written here, sharing nothing with the store.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ConversationQuery } from '../../src/sandbox/conversation-store.js';
import type { Conversation } from '../../src/sandbox/types.js';
import { call, DAY, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const GENERATED = 2_000;
const NOW = Date.UTC(2030, 0, 15, 12);

let now = NOW;
const sb = useSandbox(() => start({ now: () => now, conversations: GENERATED }));
let all: Conversation[];
/** each conversation's position, computed once */
let keys: Map<string, Key>;
const wsA = () => sb.state.workspaces.get(sb.seed.workspaceA)!;
const generatedId = (n: number) => `c0000000-000a-4000-9000-${String(n).padStart(12, '0')}`;

beforeAll(async () => {
  // Writes move generated conversations out of the columns: deleted, rated, continued long after
  // their creation (so their latest event is far from their createdAt), plus new ones.
  now += 60_000;
  for (const n of [5, 17, 900]) await call(sb, 'DELETE', `/v2/hc-interactions/${generatedId(n)}/public`);
  for (const n of [8, 40, 1_500]) {
    await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: { interactionId: generatedId(n), content: 'Where is my order? It has been weeks.' } });
  }
  const rated = wsA().conversations.get(generatedId(12))!;
  await call(sb, 'POST', `/v2/hc-interactions/${rated.id}/feedback/public`, { body: { eventId: rated.events[1].id, approved: false } });
  for (const botId of [sb.seed.bots.storeAssistant, sb.seed.bots.emailSupport]) {
    await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: { botId, content: 'Do you ship to Canada?' } });
  }
  // Many more, straight on the store: every 7th deleted, every 11th read (an object from then on),
  // every 13th continued by a late event, some of those a day or two after their creation.
  const store = wsA().conversations;
  for (let n = 1; n <= GENERATED; n++) {
    if (n % 7 === 0) store.delete(generatedId(n));
    else if (n % 13 === 0) {
      const c = store.get(generatedId(n))!;
      const at = n % 2 ? c.createdAt + (n % 48) * 3_600_000 : now;
      c.events.push({ ...c.events[0], id: `late-${n}`, createdAt: at, message: 'One more thing about my order.' });
    } else if (n % 11 === 0) store.get(generatedId(n));
  }
  all = [...wsA().conversations.values()];
  keys = new Map(all.map((c) => [c.id, keyOf(c)]));
});

interface Key {
  t: number;
  id: string;
}
const keyOf = (c: Conversation): Key => ({ t: Math.max(c.createdAt, ...c.events.map((e) => e.createdAt)), id: c.id });
const newer = (a: Key, b: Key) => a.t > b.t || (a.t === b.t && a.id > b.id);

/** Every conversation filtered and sorted, then cut at the cursor: the rules of CHOICES.md, by brute force. */
function reference(query: ConversationQuery) {
  const { since, until, botId, sources, channels, csat, question, answer } = query;
  const sorted = all
    .filter(
      (c) =>
        c.touchedByService &&
        c.createdAt >= since &&
        c.createdAt <= until &&
        (botId === undefined || c.botId === botId) &&
        (!sources?.length || sources.includes(c.source)) &&
        (!channels?.length || channels.includes(c.channel)) &&
        (csat === undefined || c.events.some((e) => e.csatRating === csat)) &&
        (question === undefined || c.events.some((e) => e.role === 'user' && e.message?.toLowerCase().includes(question))) &&
        (answer === undefined || c.events.some((e) => e.role === 'svcbot' && e.message?.toLowerCase().includes(answer))),
    )
    .map((c) => ({ id: c.id, k: keys.get(c.id)! }))
    .sort((a, b) => (newer(a.k, b.k) ? -1 : 1));
  const cursor = query.cursor;
  let page: typeof sorted;
  let hasMore: boolean;
  if (!cursor || query.direction === 'next') {
    const older = cursor ? sorted.filter((x) => newer(cursor, x.k)) : sorted;
    page = older.slice(0, query.limit);
    hasMore = older.length > query.limit;
  } else {
    const newerOnes = sorted.filter((x) => newer(x.k, cursor));
    page = newerOnes.slice(Math.max(0, newerOnes.length - query.limit));
    hasMore = newerOnes.length > query.limit;
  }
  const first = page[0];
  const last = page[page.length - 1];
  return {
    ids: page.map((x) => x.id),
    hasMore,
    nextCursor: last && sorted.some((x) => newer(last.k, x.k)) ? last.id : null,
    prevCursor: first && cursor && sorted.some((x) => newer(x.k, first.k)) ? first.id : null,
  };
}

const SOURCES = ['widget', 'zendesk', 'api', 'slack'];
/** Mostly absent, so that most pages hold something. */
const sometimes = <T>(value: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: value, weight: 1 });
const queries = () => {
  const ids = all.map((c) => c.id);
  return fc.record({
    since: fc.integer({ min: NOW - 400 * DAY, max: NOW }),
    span: fc.integer({ min: 1, max: 90 * DAY }),
    limit: fc.integer({ min: 1, max: 100 }),
    cursor: fc.option(fc.constantFrom(...ids), { nil: undefined }),
    direction: fc.constantFrom('next' as const, 'previous' as const),
    botId: sometimes(fc.constantFrom(sb.seed.bots.storeAssistant, sb.seed.bots.emailSupport, '00000000-0000-4000-8000-000000000000')),
    sources: sometimes(fc.subarray(SOURCES)),
    channels: sometimes(fc.subarray(['chat', 'email'])),
    csat: sometimes(fc.integer({ min: 0, max: 5 })),
    question: sometimes(fc.constantFrom('zipper', 'where is my order', 'password', 'o', 'canada', 'nothing like this')),
    answer: sometimes(fc.constantFrom('tracking', 'return', 'the', 'dhl', 'nothing like this')),
  });
};

describe('GET /v2/hc-interactions/public over generated conversations', () => {
  it('gives, for any filters and cursor, the page that filtering and sorting every conversation gives', () => {
    fc.assert(
      fc.property(queries(), ({ span, cursor, ...rest }) => {
        const query: ConversationQuery = { ...rest, until: Math.min(rest.since + span, NOW + DAY), cursor: cursor === undefined ? undefined : keys.get(cursor) };
        const page = wsA().conversations.listPage(query);
        expect({ ...page, conversations: undefined, ids: page.conversations.map((c) => c.id) }).toEqual({ ...reference(query), conversations: undefined });
      }),
      { numRuns: 200 },
    );
  });

  it('pages through the route with its cursors, both ways, visiting every match once', async () => {
    const window = { since: NOW - 89 * DAY, until: NOW + DAY, botId: sb.seed.bots.emailSupport };
    const expected = reference({ ...window, limit: 100_000, direction: 'next' }).ids;
    expect(expected.length).toBeGreaterThan(120);
    const list = (query: Record<string, string | number>) => call(sb, 'GET', '/v2/hc-interactions/public', { query: { ...window, limit: 60, ...query } });
    const forward: string[] = [];
    let page = await list({});
    for (;;) {
      forward.push(...page.body.interactions.map((c: { id: string }) => c.id));
      if (!page.body.nextCursor) break;
      page = await list({ cursor: page.body.nextCursor });
    }
    expect(forward).toEqual(expected);
    const backward: string[] = [];
    let cursor: string | null = expected[expected.length - 1];
    while (cursor) {
      page = await list({ cursor, direction: 'previous' });
      backward.unshift(...page.body.interactions.map((c: { id: string }) => c.id));
      cursor = page.body.prevCursor;
    }
    expect([...backward, expected[expected.length - 1]]).toEqual(expected);
  });
});
