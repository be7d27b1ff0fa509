import { beforeAll, describe, expect, it } from 'vitest';
import { call, DAY, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

/** The sandbox's clock, standing still. */
const now = Date.now();
const sb = useSandbox(() => start({ now: () => now }));

const list = (query: Record<string, string | number | (string | number)[]> = {}, key?: string) => call(sb, 'GET', '/v2/hc-interactions/public', { query, key });
const seedConv = (n: number) => `c0000000-000a-4000-8000-${String(n).padStart(12, '0')}`;
const latest = (c: { createdAt: number; events: { createdAt: number }[] }) => Math.max(c.createdAt, ...c.events.map((e) => e.createdAt));

describe('GET /v2/hc-interactions/public: defaults and shape', () => {
  it('returns the last 7 days, newest latest-message first, excluding untouched conversations', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['hasMore', 'interactions', 'nextCursor', 'prevCursor']);
    const ids = r.body.interactions.map((c: { id: string }) => c.id);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(seedConv));
    expect(ids).not.toContain(sb.seed.untouchedConversation);
    expect(r.body.hasMore).toBe(false);
    expect(r.body.nextCursor).toBeNull();
    expect(r.body.prevCursor).toBeNull();
    const times = r.body.interactions.map(latest);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('serializes PublicConversation and PublicEvent with exactly the spec fields', async () => {
    const r = await list({ limit: 100 });
    const conv = r.body.interactions.find((c: { id: string }) => c.id === sb.seed.attachmentConversation);
    expect(Object.keys(conv).sort()).toEqual(
      [
        'channel',
        'createdAt',
        'events',
        'externalCreatedAt',
        'externalId',
        'hasFeedback',
        'id',
        'resolved',
        'source',
        'status',
        'subjectPreview',
        'url',
        'usedArticles',
        'usedSubfolders',
        'userAttributes',
      ].sort(),
    );
    const ev = conv.events[0];
    expect(Object.keys(ev).sort()).toEqual(
      [
        'approved',
        'attachments',
        'createdAt',
        'csatRating',
        'externalCreatedAt',
        'externalId',
        'feedback',
        'id',
        'interactionId',
        'message',
        'resolved',
        'role',
        'tags',
        'type',
        'usedArticles',
      ].sort(),
    );
    for (const e of conv.events) expect(e.interactionId).toBe(conv.id);
    const att = ev.attachments[0];
    expect(att).toMatchObject({ contentType: 'image/jpeg', sizeBytes: 184_233 });
    expect(att.storageUrl).toContain(`${sb.url}/__sandbox/files/`);
    expect(att.expiresAt).toBeGreaterThan(now);
    expect(conv.events[1].usedArticles[0]).toEqual({
      id: sb.seed.articles.warranty,
      title: 'Lifetime warranty and repairs',
      documentUrl: expect.stringContaining('https://'),
    });
    expect(ev.tags).toEqual([{ id: sb.seed.tags.warranty, name: 'warranty', groupId: sb.seed.tagGroups.topics }]);
    // CSAT 0 is returned as 0
    const c10 = r.body.interactions.find((c: { id: string }) => c.id === seedConv(10));
    expect(c10.events.some((e: { csatRating: number | null }) => e.csatRating === 0)).toBe(true);
  });

  it('seeds negatively rated conversations with the recomputed resolved flag', async () => {
    const r = await list();
    const byId = new Map(r.body.interactions.map((c: { id: string }) => [c.id, c]));
    const neg = byId.get(sb.seed.negativeConversation) as any;
    const ev = neg.events.find((e: { id: string }) => e.id === sb.seed.negativeEvent);
    expect(ev).toMatchObject({ role: 'svcbot', approved: false, resolved: false });
    expect(ev.feedback).toBeTruthy();
    expect(neg).toMatchObject({ hasFeedback: true, resolved: false });
    expect((byId.get(seedConv(6)) as any).resolved).toBe(true); // its only negative event is resolved
    expect((byId.get(seedConv(2)) as any).resolved).toBeNull(); // thumbs up only
  });
});

describe('GET /v2/hc-interactions/public: 400 rules', () => {
  const cases: [string, Record<string, string | number>, string][] = [
    ['since not an integer', { since: 'yesterday' }, 'since must be an integer number'],
    ['since fractional', { since: '1.5' }, 'since must be an integer number'],
    ['until not an integer', { until: '12abc' }, 'until must be an integer number'],
    ['limit 0', { limit: 0 }, 'limit must not be less than 1'],
    ['limit 101', { limit: 101 }, 'limit must not be greater than 100'],
    ['limit text', { limit: 'ten' }, 'limit must be an integer number'],
    ['direction', { direction: 'up' }, 'direction must be one of the following values: next, previous'],
    ['botId', { botId: 'store-assistant' }, 'botId must be a UUID'],
    ['source', { source: 'api,carrier-pigeon' }, 'each value in source must be one of the following values'],
    ['channel', { channel: 'sms' }, 'each value in channel must be one of the following values: chat, email'],
    ['question of 101 emoji', { question: '😀'.repeat(101) }, 'question must be shorter than or equal to 100 characters'],
    ['question too long', { question: 'x'.repeat(101) }, 'question must be shorter than or equal to 100 characters'],
    ['question %', { question: '50%' }, 'question must not contain % or _'],
    ['question _', { question: 'order_id' }, 'question must not contain % or _'],
    ['question control char', { question: 'hi\u0007there' }, 'question must not contain control characters'],
    ['answer %', { answer: '%' }, 'answer must not contain % or _'],
    ['answer too long', { answer: 'y'.repeat(101) }, 'answer must be shorter than or equal to 100 characters'],
    ['csat 6', { csat: 6 }, 'csat must not be greater than 5'],
    ['csat -1', { csat: -1 }, 'csat must not be less than 0'],
    ['csat text', { csat: 'good' }, 'csat must be an integer number'],
  ];
  it.each(cases)('%s', async (_label, query, message) => {
    const r = await list(query);
    expect(r.status).toBe(400);
    expect(r.body.statusCode).toBe(400);
    expect(r.body.error).toBe('Bad Request');
    expect(r.body.message.some((m: string) => m.startsWith(message))).toBe(true);
  });

  it('accepts 100 characters surrounded by blanks', async () => {
    expect((await list({ question: `  ${'x'.repeat(100)}  ` })).status).toBe(200);
  });

  it('counts characters as code points (51 emoji are 51) and takes blank text, for which the spec sets no minimum', async () => {
    expect((await list({ question: '😀'.repeat(51) })).status).toBe(200);
    expect((await list({ answer: '😀'.repeat(100) })).status).toBe(200);
    const blank = await list({ question: '   ' });
    expect(blank.status).toBe(200);
    expect(blank.body.interactions.length).toBeGreaterThan(0);
  });

  it('rejects since >= until', async () => {
    const queries: Record<string, number>[] = [{ since: now, until: now }, { since: now, until: now - 1 }, { until: now - 8 * DAY }];
    for (const q of queries) {
      const r = await list(q);
      expect(r.status).toBe(400);
      expect(r.body.message).toEqual(['since must be earlier than until']);
    }
  });

  it('rejects windows over 90 days and accepts exactly 90 days', async () => {
    const r = await list({ since: now - 90 * DAY - 1, until: now });
    expect(r.status).toBe(400);
    expect(r.body.message).toEqual(['the window between since and until must not exceed 90 days']);
    expect((await list({ since: now - 90 * DAY, until: now })).status).toBe(200);
  });

  it('rejects an unknown cursor', async () => {
    const r = await list({ cursor: '00000000-0000-4000-8000-000000000000' });
    expect(r.status).toBe(400);
    expect(r.body.message).toEqual(['cursor must be the id of a conversation in this workspace']);
  });
});

describe('GET /v2/hc-interactions/public: filters', () => {
  let ninety: { since: number; until: number };
  beforeAll(() => {
    ninety = { since: now - 90 * DAY, until: now };
  });
  const ids = (r: { body: { interactions: { id: string }[] } }) => r.body.interactions.map((c) => c.id);

  it('filters on createdAt within [since, until], inclusive', async () => {
    const c = sb.state.workspaces.get(sb.seed.workspaceA)!.conversations.get(seedConv(5))!;
    expect(ids(await list({ since: c.createdAt, until: c.createdAt + 1 }))).toEqual([c.id]);
    expect(ids(await list({ since: c.createdAt - 1, until: c.createdAt }))).toEqual([c.id]);
    expect(ids(await list({ since: now - 120 * DAY, until: now - 91 * DAY, limit: 100 }))).toHaveLength(8);
  });

  it('botId, source (comma-separated or repeated) and channel', async () => {
    const all = await list({ ...ninety, limit: 100 });
    const email = await list({ ...ninety, limit: 100, botId: sb.seed.bots.emailSupport });
    expect(email.body.interactions.length).toBeGreaterThan(0);
    expect(email.body.interactions.every((c: { channel: string }) => c.channel === 'email')).toBe(true);
    const chat = await list({ ...ninety, limit: 100, channel: 'chat' });
    expect(chat.body.interactions.length + email.body.interactions.length).toBe(all.body.interactions.length);
    const both = await list({ ...ninety, limit: 100, channel: 'chat,email' });
    expect(both.body.interactions.length).toBe(all.body.interactions.length);
    const s1 = await list({ ...ninety, limit: 100, source: 'api,zendesk' });
    const s2 = await list({ ...ninety, limit: 100, source: ['api', 'zendesk'] });
    expect(ids(s1)).toEqual(ids(s2));
    expect(s1.body.interactions.every((c: { source: string }) => ['api', 'zendesk'].includes(c.source))).toBe(true);
    expect(s1.body.interactions.some((c: { source: string }) => c.source === 'api')).toBe(true);
    const unknownBot = await list({ botId: '00000000-0000-4000-8000-000000000000' });
    expect(unknownBot.body.interactions).toEqual([]);
  });

  it('question and answer: case-insensitive substrings, both must match', async () => {
    const q = await list({ ...ninety, limit: 100, question: 'ZIPPER' });
    expect(ids(q).sort()).toEqual([sb.seed.attachmentConversation, seedConv(21)].sort());
    const a = await list({ ...ninety, limit: 100, answer: 'lifetime warranty' });
    expect(a.body.interactions.length).toBeGreaterThanOrEqual(3);
    const both = await list({ ...ninety, limit: 100, question: 'zipper', answer: 'lifetime warranty' });
    expect(ids(both).sort()).toEqual(ids(q).sort());
    const none = await list({ ...ninety, limit: 100, question: 'zipper', answer: 'customs duties' });
    expect(none.body.interactions).toEqual([]);
    // answer looks only at svcbot messages, question only at user messages
    expect((await list({ ...ninety, question: 'lifetime warranty against defects' })).body.interactions).toEqual([]);
  });

  it('csat filter', async () => {
    expect(ids(await list({ csat: 0 }))).toEqual([seedConv(10)]);
    const five = await list({ ...ninety, csat: 5, limit: 100 });
    expect(five.body.interactions.length).toBeGreaterThan(0);
    for (const c of five.body.interactions) expect(c.events.some((e: { csatRating: number }) => e.csatRating === 5)).toBe(true);
  });
});

describe('GET /v2/hc-interactions/public: cursor paging', () => {
  const window = () => ({ since: now - 90 * DAY, until: now });

  it('visits every conversation exactly once going next, then going previous', async () => {
    const all = await list({ ...window(), limit: 100 });
    const expected = all.body.interactions.map((c: { id: string }) => c.id);
    expect(expected.length).toBe(32);

    const forward: string[] = [];
    let page = await list({ ...window(), limit: 7 });
    expect(page.body.prevCursor).toBeNull();
    for (;;) {
      forward.push(...page.body.interactions.map((c: { id: string }) => c.id));
      if (!page.body.nextCursor) {
        expect(page.body.hasMore).toBe(false);
        break;
      }
      expect(page.body.hasMore).toBe(true);
      page = await list({ ...window(), limit: 7, cursor: page.body.nextCursor, direction: 'next' });
      expect(page.body.prevCursor).toBe(page.body.interactions[0].id);
    }
    expect(forward).toEqual(expected);

    // backwards from the oldest conversation
    const oldest = expected[expected.length - 1];
    const backward: string[][] = [];
    let cursor: string | null = oldest;
    while (cursor) {
      const p = await list({ ...window(), limit: 7, cursor, direction: 'previous' });
      expect(p.status).toBe(200);
      backward.unshift(p.body.interactions.map((c: { id: string }) => c.id));
      expect(p.body.nextCursor).toBe(p.body.interactions.at(-1).id);
      cursor = p.body.prevCursor;
      expect(p.body.hasMore).toBe(cursor !== null);
    }
    expect([...backward.flat(), oldest]).toEqual(expected);
  });

  it('a previous page from the first item is empty', async () => {
    const first = await list({ limit: 3 });
    const p = await list({ cursor: first.body.interactions[0].id, direction: 'previous' });
    expect(p.body).toEqual({ interactions: [], hasMore: false, nextCursor: null, prevCursor: null });
  });
});
