import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/sandbox/types.js';
import { apiRequests, callAsTask, textOf } from '../support/harness.js';
import { structured, useConnection, useServer } from '../support/fixture.js';
import { independentCount, type CountedGroup } from '../support/stats-count.js';

const { sandbox, server, call } = useServer({ env: { SVC_CONFIRM: 'none', SVC_EXPORT_DIR: mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-stats-')) } });
const DAY = 86_400_000;
/** The list route's largest window, and its largest page. */
const SLICE = 90 * DAY;
const PAGE = 100;

const { workspace, listedIn, figures, dimensions, groupsBy, expectedGroups, expectedCrossed, byId, keyOfCrossed } = independentCount(() => sandbox);
type Group = CountedGroup;

/** The requests the scan may spend at the least: one agent listing, then for each agent and slice one page per 100 conversations (an empty slice still costs one). */
function floorOf(pages: Array<{ botId: string; since: number; until: number }>): number {
  const slices = new Map(pages.map((page) => [JSON.stringify(page), page]));
  let floor = 1;
  for (const { botId, since, until } of slices.values()) {
    const conversations = listedIn(since, until).filter((conversation) => conversation.botId === botId).length;
    floor += Math.max(1, Math.ceil(conversations / PAGE));
  }
  return floor;
}

const listPages = () =>
  apiRequests(sandbox)
    .filter((request) => request.path === '/v2/hc-interactions/public')
    .map((request) => ({ botId: String(request.query.botId), since: Number(request.query.since), until: Number(request.query.until) }));

const FIGURE_NAMES = ['conversations', 'answers', 'thumbsUp', 'thumbsDown', 'negativeRate', 'unresolvedNegative', 'csat', 'escalations', 'negativeArticles'];

describe('conversation_stats and attribution', () => {
  it('counts by agent over 200 days as the sandbox data says, defines each figure once, says what a cut list left out, and spends requests at the floor', async () => {
    const until = Date.now();
    const since = until - 200 * DAY;
    const progress: string[] = [];
    const result = await call(
      'conversation_stats',
      { since, until, groupBy: 'agent' },
      {
        onprogress: (update) => progress.push(update.message ?? ''),
      },
    );
    const data = structured(result);
    const listed = listedIn(since, until);
    expect(data.complete).toBe(true);
    expect(data.count).toBe(listed.length);
    expect(data.total).toEqual(figures(listed));
    expect(data.total.negativeArticlesLeftOut).toBeGreaterThan(0);
    expect(byId(data.groups.agent)).toEqual(expectedGroups('agent', listed));
    expect(Object.keys(data.definitions)).toEqual(FIGURE_NAMES);
    expect(data.definitions.negativeRate).toMatch(/thumbsDown \/ \(thumbsUp \+ thumbsDown\)/);

    const requests = apiRequests(sandbox);
    expect(requests.filter((request) => request.path === '/v2/bots/public')).toHaveLength(1);
    const pages = listPages();
    expect(pages.every((page) => page.since < page.until && page.until - page.since <= SLICE)).toBe(true);
    expect(new Set(pages.map((page) => `${page.since}-${page.until}`)).size).toBe(Math.ceil((until - since + 1) / (SLICE + 1)));
    expect(requests.every((request) => request.path !== '/v2/hc-interactions/public' || request.query.limit === String(PAGE))).toBe(true);
    expect(requests.length).toBe(floorOf(pages));
    expect(data.requests).toBe(requests.length);
    expect(data.note).toContain(`${requests.length} requests`);
    expect(progress.length).toBe(pages.length);
    expect(progress.at(-1)).toMatch(new RegExp(`^Count: ${listed.length} conversations after ${requests.length} of about ${requests.length} requests; done$`));
    expect(progress[0]).toMatch(/^Count: \d+ conversations after 2 of about \d+ requests; (under 1s|about \d+s|about \d+ min) left at the rate budget of 100 per 60s$/);

    const text = textOf(result);
    expect(text).toMatch(/\| agent \| conversations \| answers \|/);
    expect(text).toContain('Store Assistant');
    expect(text).toMatch(/\| total \| \d+ \|/);
    expect(textOf(await call('conversation_stats', { since, until, groupBy: 'channel' }))).toContain(`and ${data.total.negativeArticlesLeftOut} more article(s) not listed`);
    expect(text.match(/- negativeRate: /g)).toHaveLength(1);
  });

  it("crosses two dimensions, with each one's own groups beside the pairs", async () => {
    const until = Date.now();
    const since = until - 200 * DAY;
    const data = structured(await call('conversation_stats', { since, until, groupBy: ['agent', 'week'] }));
    const listed = listedIn(since, until);
    expect(byId(data.groups.agent)).toEqual(expectedGroups('agent', listed));
    expect(byId(data.groups.week)).toEqual(expectedGroups('week', listed));
    const weeks = data.groups.week.map((group: Group) => group.id);
    expect(weeks).toEqual([...weeks].sort());
    const crossed = Object.fromEntries(data.crossed.map((group: Group) => [keyOfCrossed(group, ['agent', 'week']), group]));
    expect(crossed).toEqual(expectedCrossed(['agent', 'week'], listed));
    expect(data.crossed.length).toBeGreaterThan(data.groups.week.length);
    const text = textOf(await call('conversation_stats', { since, until, groupBy: ['agent', 'week'] }));
    expect(text).toMatch(/By agent and week:\n\| agent \| week \| conversations \|/);
    // The crossed table alone (issue 33), ending with the total: the one-way tables repeat its rows' sums.
    expect(text).not.toMatch(/^By (agent|week):$/m);
    expect(text).toMatch(new RegExp(`^\\| total \\| {2}\\| ${listed.length} \\|`, 'm'));
  });

  it('compares with the window of equal length just before, in one scan: figures, groups, crossed pairs and their change', async () => {
    const until = Date.now();
    const since = until - 7 * DAY;
    const data = structured(await call('conversation_stats', { since, until, groupBy: ['agent', 'channel'], compareTo: 'previous' }));
    const now = listedIn(since, until);
    const before = listedIn(since - (until - since) - 1, since - 1);
    expect(before.length).toBeGreaterThan(0);
    expect(data.previous.since).toBe(new Date(since - (until - since) - 1).toISOString());
    expect(data.previous.until).toBe(new Date(since - 1).toISOString());
    expect(data.total).toEqual(figures(now));
    expect(data.count).toBe(now.length);
    expect(data.previous.total).toEqual(figures(before));
    for (const dimension of ['agent', 'channel']) {
      expect(byId(data.groups[dimension])).toEqual(expectedGroups(dimension, now));
      expect(byId(data.previous.groups[dimension])).toEqual(expectedGroups(dimension, before));
    }
    const crossedKey = (group: Record<string, any>) => keyOfCrossed(group, ['agent', 'channel']);
    expect(Object.fromEntries(data.previous.crossed.map((group: Group) => [crossedKey(group), group]))).toEqual(expectedCrossed(['agent', 'channel'], before));

    // A change holds each counted figure less the earlier one; a rate with no figure on either side stays null.
    const counted = ['conversations', 'answers', 'thumbsUp', 'thumbsDown', 'negativeRate', 'unresolvedNegative', 'escalations'] as const;
    const minus = (a: ReturnType<typeof figures> | undefined, b: ReturnType<typeof figures> | undefined) => {
      const zero = figures([]);
      const [x, y] = [a ?? zero, b ?? zero];
      const less = (p: number | null, q: number | null) => (p === null || q === null ? null : Math.round((p - q) * 1000) / 1000);
      const csat = { count: less(x.csat.count, y.csat.count), mean: less(x.csat.mean, y.csat.mean) };
      return { ...Object.fromEntries(counted.map((name) => [name, less(x[name], y[name])])), csat };
    };
    expect(data.change.total).toEqual(minus(figures(now), figures(before)));
    const agents = new Set([...now, ...before].map((conversation) => conversation.botId));
    const agentChange = byId(data.change.groups.agent);
    expect(Object.keys(agentChange).sort()).toEqual([...agents].sort());
    for (const botId of agents) {
      const of = (list: Conversation[]) => list.filter((conversation) => conversation.botId === botId);
      expect(agentChange[botId]).toEqual({ id: botId, name: workspace().bots.get(botId)!.name, ...minus(figures(of(now)), figures(of(before))) });
    }
    const nowCrossed = expectedCrossed(['agent', 'channel'], now);
    const beforeCrossed = expectedCrossed(['agent', 'channel'], before);
    const pairs = [...new Set([...Object.keys(nowCrossed), ...Object.keys(beforeCrossed)])];
    expect(Object.fromEntries(data.change.crossed.map((group: Group) => [crossedKey(group), group]))).toEqual(
      Object.fromEntries(pairs.map((key) => [key, { ...JSON.parse(key), ...minus(nowCrossed[key], beforeCrossed[key]) }])),
    );
    // The figures were defined in this session's first stats result (design 15): only change is new.
    expect(Object.keys(data.definitions)).toEqual(['change']);
    // Both windows fit in one slice per agent: one call, at the floor.
    expect(data.requests).toBe(1 + workspace().bots.size);
    expect(apiRequests(sandbox)).toHaveLength(data.requests);
    const text = textOf(await call('conversation_stats', { since, until, compareTo: 'previous' }));
    expect(text).toContain('Compared with the previous window');
    expect(text).toMatch(/\| total \| \d+ \([+-±]\d+\) \|/);
  });

  it('names the agent of every exported conversation, and says each set of conversations once in the counts', async () => {
    for (const days of [7, 200]) {
      sandbox.clearRequests();
      const until = Date.now();
      const since = until - days * DAY;
      const exported = structured(await call('export_conversations', { since, until, maxConversations: 1000 }));
      const listed = listedIn(since, until);
      const conversations = exported.interactions as Array<Record<string, unknown>>;
      expect(conversations.map((conversation) => conversation.id).sort()).toEqual(listed.map((conversation) => conversation.id).sort());
      const botOf = new Map(listed.map((conversation) => [conversation.id, conversation.botId]));
      for (const conversation of conversations) {
        expect(conversation.botId, String(conversation.id)).toBe(botOf.get(String(conversation.id)));
        expect(conversation.agentName).toBe(workspace().bots.get(String(conversation.botId))!.name);
      }
      const { totalRead: total, groups, definitions } = exported.stats;
      // Defined in this session's first stats result already.
      expect(definitions).toBeUndefined();
      // Each entry: the conversations that match every key it names, which are also those that match any one of them.
      const entries = [{ ...total, whole: true }, ...groups] as Array<Record<string, any>>;
      const named = new Map<string, number>();
      for (const entry of entries) {
        const keys = Object.keys(dimensions).filter((dimension) => dimension !== 'week' && (dimension === 'agent' ? entry.botId : entry[dimension]) !== undefined);
        const matching = (dimension: string) => listed.filter((conversation) => dimensions[dimension](conversation)[0] === (dimension === 'agent' ? entry.botId : entry[dimension]));
        const members = entry.whole ? listed : matching(keys[0]);
        for (const dimension of keys) {
          expect(
            matching(dimension)
              .map((conversation) => conversation.id)
              .sort(),
            `${days}d ${dimension}`,
          ).toEqual(members.map((conversation) => conversation.id).sort());
          named.set(dimension, (named.get(dimension) ?? 0) + 1);
        }
        const { botId: _botId, agent: _agent, source: _source, channel: _channel, whole: _whole, ...counts } = entry;
        expect(counts).toEqual(figures(members));
      }
      // Every group of every dimension is said exactly once.
      for (const dimension of ['agent', 'source', 'channel']) expect(named.get(dimension) ?? 0, `${days}d ${dimension}`).toBe(groupsBy(dimension, listed).size);
      expect(new Set(groups.map((group: Record<string, unknown>) => JSON.stringify(group))).size).toBe(groups.length);
      expect(exported.requests).toBe(apiRequests(sandbox).length);
      expect(exported.requests).toBe(floorOf(listPages()));
    }
  });

  it('returns the counts with the summary when export_conversations writes a file', async () => {
    const written = structured(await call('export_conversations', { since: '30d', feedback: 'negative', outputFile: 'answers-stats.ndjson' }));
    expect(written.file).toMatch(/answers-stats\.ndjson$/);
    expect(written.interactions).toBeUndefined();
    expect(written.stats.totalRead.thumbsDown).toBeGreaterThan(0);
    expect(written.stats.totalRead.conversations).toBe(written.count);
    expect(Object.keys(written.stats)).toEqual(['totalRead', 'groups']);
  });

  it('queries only the given agent, still named, and groups by day', async () => {
    const botId = sandbox.seed.bots.emailSupport;
    const data = structured(await call('conversation_stats', { since: '30d', botId, groupBy: ['agent', 'day'] }));
    expect((data.groups.agent as Group[]).map((group) => [group.id, group.name])).toEqual([[botId, 'Email Support']]);
    const days = (data.groups.day as Group[]).map((group) => group.id);
    expect(days).toEqual([...days].sort());
    expect((data.groups.day as Group[]).reduce((total, group) => total + Number(group.conversations), 0)).toBe(data.count);
    const pages = apiRequests(sandbox).filter((request) => request.path === '/v2/hc-interactions/public');
    expect(pages.every((request) => request.query.botId === botId)).toBe(true);
  });

  it('refuses more than two dimensions, or one twice, naming the rule', async () => {
    for (const groupBy of [
      ['agent', 'source', 'channel'],
      ['week', 'week'],
    ]) {
      const refused = await call('conversation_stats', { groupBy });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/groupBy: (takes one dimension, or two to cross|must name two different dimensions to cross)/);
    }
    expect(apiRequests(sandbox)).toHaveLength(0);
  });

  it('says when maxConversations cut the count short', async () => {
    const data = structured(await call('conversation_stats', { since: '200d', maxConversations: 5 }));
    expect(data).toMatchObject({ complete: false, count: 5 });
    expect(data.total.conversations).toBe(5);
    expect(data.note).toContain('maxConversations=5');
    expect(data.leftOut).toEqual({ count: expect.any(Number), exact: false });
    expect(data.leftOut.count).toBeGreaterThan(0);
    // The first line says so, how many were read, how many more match at least, and how to get the rest.
    const [first] = textOf(await call('conversation_stats', { since: '200d', maxConversations: 5 })).split('\n');
    expect(first).toBe(
      `INCOMPLETE: read 5 conversations, and at least ${data.leftOut.count} more match (the pages, agents and slices after the stop were not read). maxConversations=5 stopped the count: raise it, or leave it out to count every one.`,
    );
  });

  it('counts a conversation the API repeats at the top of the next page once', async () => {
    const botId = sandbox.seed.bots.emailSupport;
    const item = (n: number) => ({ id: `c-edge-${n}`, createdAt: Date.now() - n * 1000, source: 'api', channel: 'chat', hasFeedback: false, events: [] });
    sandbox.injectFaults([
      { path: '/v2/hc-interactions/public', status: 200, body: { interactions: [item(1), item(2)], hasMore: true, nextCursor: 'c-edge-2', prevCursor: null } },
      { path: '/v2/hc-interactions/public', status: 200, body: { interactions: [item(2), item(3)], hasMore: false, nextCursor: null, prevCursor: 'c-edge-2' } },
    ]);
    const data = structured(await call('conversation_stats', { since: '1d', botId }));
    expect(data.count).toBe(3);
    expect(data.scanned).toBe(4);
  });

  it('runs as an MCP task on request', async () => {
    const { kinds, result } = await callAsTask(server.client, 'conversation_stats', { since: '100d', groupBy: ['channel'] });
    expect(kinds[0]).toBe('taskCreated');
    expect(result?.isError).toBeFalsy();
    expect((result!.structuredContent as Record<string, any>).groups.channel.length).toBe(2);
  });

  it('names the agent in list_conversations when botId is given', async () => {
    const botId = sandbox.seed.bots.storeAssistant;
    const page = structured(await call('list_conversations', { since: '30d', botId, limit: 5 }));
    expect(page.interactions.length).toBeGreaterThan(0);
    for (const conversation of page.interactions) expect(conversation.botId).toBe(botId);
  });

  it('says which window and filters matched nothing, and which article ids were not found', async () => {
    const empty = structured(await call('list_conversations', { since: '30d', question: 'snowmobile' }));
    expect(empty.interactions).toEqual([]);
    expect(empty.note).toMatch(/No conversation matched the window \d{4}-.* to \d{4}-.* with question=snowmobile/);
    const none = structured(await call('conversation_stats', { since: '30d', channel: ['email'], feedback: 'positive', question: 'snowmobile' }));
    expect(none.count).toBe(0);
    expect(none.note).toContain('channel=email, question=snowmobile, feedback=positive');
    const articles = structured(await call('get_articles', { articleIds: [sandbox.seed.articles.warranty, 'no-such-article'] }));
    expect(articles.articles).toHaveLength(1);
    expect(articles.notFound).toEqual(['no-such-article']);
    expect(articles.note).toContain('1 of 2 ids');
  });
});

describe('definitions once per session (design 15) and no silent cut (issue 33)', () => {
  const first = useConnection(sandbox, { env: { SVC_CONFIRM: 'none' } });
  const other = useConnection(sandbox, { env: { SVC_CONFIRM: 'none' } });

  it('states every definition in the first stats result of a session, names them after, and states them again in a new session', async () => {
    const opening = await first.call('conversation_stats', { since: '30d' });
    expect(Object.keys(structured(opening).definitions)).toEqual(FIGURE_NAMES);
    expect(textOf(opening)).toContain('\nDefinitions:\n- conversations: ');
    const later = await first.call('conversation_stats', { since: '60d', groupBy: ['channel'] });
    expect(structured(later).definitions).toBeUndefined();
    expect(textOf(later)).not.toContain('thumbsDown / (thumbsUp + thumbsDown)');
    expect(textOf(later)).toContain('Definitions: as stated earlier in this session (svc://guide has them too).');
    const compared = await first.call('conversation_stats', { since: '30d', compareTo: 'previous' });
    expect(Object.keys(structured(compared).definitions)).toEqual(['change']);
    expect(textOf(compared)).toContain('Other definitions: as stated earlier in this session');
    expect(structured(await first.call('export_conversations', { since: '7d' })).stats.definitions).toBeUndefined();
    // Another session is told them once too, by whichever result comes first.
    expect(Object.keys(structured(await other.call('export_conversations', { since: '7d' })).stats.definitions)).toEqual(FIGURE_NAMES);
    expect(structured(await other.call('conversation_stats', { since: '7d' })).definitions).toBeUndefined();
    // And the guide states them all, always.
    const guide = await first.client.readResource({ uri: 'svc://guide' });
    const text = (guide.contents[0] as { text: string }).text;
    for (const definition of Object.values(structured(opening).definitions as Record<string, string>)) expect(text).toContain(definition);
  });

  it('says in the first line when the stop was at the last page, with the exact number that match', async () => {
    const botId = sandbox.seed.bots.emailSupport;
    const listed = listedIn(Date.now() - 30 * DAY, Date.now()).filter((conversation) => conversation.botId === botId);
    expect(listed.length).toBeGreaterThan(1);
    const result = await first.call('conversation_stats', { since: '30d', botId, maxConversations: 1 });
    expect(structured(result)).toMatchObject({ complete: false, count: 1, leftOut: { count: listed.length - 1, exact: true } });
    expect(textOf(result).split('\n')[0]).toBe(
      `INCOMPLETE: read 1 of the ${listed.length} conversations that match. maxConversations=1 stopped the count: raise it, or leave it out to count every one.`,
    );
  });
});

describe('export_conversations stops at 500 by default, and says so first; with outputFile it reads every one (issue 33)', () => {
  const { sandbox: big, call: bigCall } = useServer({
    sandbox: { conversations: 700, rateLimit: 'off' },
    env: { SVC_CONFIRM: 'none', SVC_EXPORT_DIR: mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-export-')) },
  });
  const matching = () =>
    [...big.state.workspaces.get(big.seed.workspaceA)!.conversations.values()].filter((conversation) => conversation.touchedByService && conversation.createdAt >= Date.now() - 365 * DAY).length;

  it('reads 500 and says how many more match and how to get them, its totals named as those of what it read', async () => {
    const result = await bigCall('export_conversations', { since: '365d' });
    const data = structured(result);
    expect(matching()).toBeGreaterThan(500);
    expect(data).toMatchObject({ complete: false, count: 500 });
    expect(data.stats.totalRead.conversations).toBe(500);
    expect(data.stats.total).toBeUndefined();
    const [line, next] = textOf(result).split('\n');
    expect(line).toMatch(/^INCOMPLETE: read 500 conversations, and at least \d+ more match .*The default maxConversations=500 stopped the export: outputFile writes every one to a file/);
    // The result cap comes next: the page cannot show 500 conversations either.
    expect(next).toMatch(/^Note: Result cut to fit the \d+-token budget: showing \d+ of 500 items/);
  });

  it('writes every matching conversation to the file, with no default cut', async () => {
    const data = structured(await bigCall('export_conversations', { since: '365d', outputFile: 'every-one.ndjson' }));
    expect(data).toMatchObject({ complete: true, count: matching() });
    expect(data.stats.totalRead.conversations).toBe(matching());
  });
});
