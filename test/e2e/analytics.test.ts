import { describe, expect, it } from 'vitest';
import { apiRequests, textOf } from '../support/harness.js';
import { structured, useConnection, useSandbox } from '../support/fixture.js';
import { independentCount } from '../support/stats-count.js';

const DAY = 86_400_000;
const SLICE = 90 * DAY;
const PAGE = 100;

const sandbox = useSandbox({ conversations: 2000, rateLimit: 'off' });
const mirrorEnv = { SVC_MIRROR: 'memory', SVC_RATE_LIMIT: '100000/60s', SVC_CONFIRM: 'none', SVC_MIRROR_QUERY_TIMEOUT_MS: '500' };
/** The mirror's server, and the same server reading the API for every question (as before the mirror). */
const mirrored = useConnection(sandbox, { env: mirrorEnv });
const direct = useConnection(sandbox, { env: { ...mirrorEnv, SVC_MIRROR: 'off' } });
const { workspace, listedIn, figures, expectedGroups, expectedCrossed, byId, keyOfCrossed } = independentCount(() => sandbox);

/** The requests a read of [since, until] costs at the least: one agent listing, then per agent and 90-day slice one page per 100 conversations. */
function floorOf(since: number, until: number): number {
  const slices = Math.ceil((until - since + 1) / (SLICE + 1));
  const size = (until - since + 1) / slices;
  let floor = 1;
  for (const botId of workspace().bots.keys()) {
    for (let index = 0; index < slices; index++) {
      const end = until - Math.round(index * size);
      const start = until - Math.round((index + 1) * size) + 1;
      const conversations = listedIn(start, end).filter((conversation) => conversation.botId === botId).length;
      floor += Math.max(1, Math.ceil(conversations / PAGE));
    }
  }
  return floor;
}

const conversationPages = () => apiRequests(sandbox).filter((request) => request.path === '/v2/hc-interactions/public');

describe('the workspace mirror', () => {
  it('reads a year once, at the request floor, and then answers the per-month, per-agent question in one call with no request', async () => {
    const synced = structured(await mirrored.call('sync_workspace', {}));
    const until = Date.now();
    // The year the sync read began a moment before this one: a day less is all held.
    const since = until - 364 * DAY;
    const listed = listedIn(since, until);
    expect(synced.conversations).toBe(listedIn(until - 365 * DAY - 60_000, until).length);
    // The knowledge is four requests more (live articles, drafts, folders, actions).
    expect(synced.sync.requests).toBeLessThanOrEqual(Math.ceil(floorOf(until - 365 * DAY, until) * 1.05) + 4);
    expect(apiRequests(sandbox)).toHaveLength(synced.sync.requests);

    sandbox.clearRequests();
    const result = await mirrored.call('conversation_stats', { since, until, groupBy: ['agent', 'month'] });
    const data = structured(result);
    expect(apiRequests(sandbox)).toHaveLength(0);
    expect(data.requests).toBe(0);
    expect(data.mirror.asOf).toEqual(expect.any(String));
    expect(data.note).toMatch(/^Answered from the workspace mirror as of /);
    expect(data.total).toEqual(figures(listed));
    expect(byId(data.groups.month)).toEqual(expectedGroups('month', listed));
    expect(Object.fromEntries(data.crossed.map((group: Record<string, unknown>) => [keyOfCrossed(group, ['agent', 'month']), group]))).toEqual(expectedCrossed(['agent', 'month'], listed));
    expect(textOf(result).length).toBeLessThan(6000);
  });

  it('counts exactly what reading the API counts, for every grouping, filter and comparison', async () => {
    await mirrored.call('sync_workspace', {});
    const asks: Array<Record<string, unknown> & { days: number }> = [
      { days: 365, groupBy: ['agent', 'quarter'] },
      { days: 200, groupBy: ['source', 'channel'] },
      { days: 30, groupBy: ['day'] },
      { days: 120, groupBy: ['agent', 'week'], feedback: 'negative' },
      { days: 60, groupBy: ['channel'], compareTo: 'previous' },
      { days: 90, botId: [...workspace().bots.keys()][1], groupBy: ['month'] },
      { days: 300, source: ['widget', 'api'], feedback: 'positive' },
    ];
    // What was read and how, and the definitions (stated once per session), differ by design; the figures may not.
    const summary = ['requests', 'pages', 'scanned', 'windows', 'note', 'mirror', 'agents', 'since', 'until', 'definitions'];
    const figuresOnly = (data: Record<string, unknown>) => Object.fromEntries(Object.entries(data).filter(([key]) => !summary.includes(key)));
    for (const { days, ...ask } of asks) {
      // One window for both, in absolute times: a relative one would be resolved a moment apart.
      const until = Date.now() - 60_000;
      const since = until - days * DAY;
      const fromMirror = structured(await mirrored.call('conversation_stats', { ...ask, since, until }));
      const fromApi = structured(await direct.call('conversation_stats', { ...ask, since, until }));
      expect(fromMirror.mirror, JSON.stringify(ask)).toBeDefined();
      expect(fromApi.mirror).toBeUndefined();
      expect(figuresOnly(fromMirror), JSON.stringify(ask)).toEqual(figuresOnly(fromApi));
    }
  });

  it('counts the newest conversations when maxConversations cuts the count, and says of how many', async () => {
    const until = Date.now() - 60_000;
    const since = until - 180 * DAY;
    const data = structured(await mirrored.call('conversation_stats', { since, until, maxConversations: 40 }));
    const newest = listedIn(since, until)
      .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id))
      .slice(0, 40);
    expect(data.complete).toBe(false);
    expect(data.total).toEqual(figures(newest));
    expect(data.note).toContain(`The newest 40 of ${listedIn(since, until).length} conversations were counted`);
    expect(data.leftOut).toEqual({ count: listedIn(since, until).length - 40, exact: true });
  });

  it('triages a week of thumbs-down answers without a note in one SQL call, ids and agents included', async () => {
    const since = Date.now() - 7 * DAY;
    const sql = `SELECT c.id AS conversation, e.id AS event, a.name AS agent
      FROM events e JOIN conversations c ON c.id = e."interactionId" JOIN agents a ON a.id = c."botId"
      WHERE e.role = 'svcbot' AND e.approved = false AND (e.feedback IS NULL OR e.feedback = '')
        AND c."createdAt" >= epoch_ms(${since}) ORDER BY e.id`;
    const result = await mirrored.call('query_workspace', { sql, maxRows: 1000 });
    const data = structured(result);
    const expected = listedIn(since, Date.now()).flatMap((conversation) =>
      conversation.events
        .filter((event) => event.role === 'svcbot' && event.approved === false && !event.feedback)
        .map((event) => [conversation.id, event.id, workspace().bots.get(conversation.botId)!.name]),
    );
    expect(data.rows).toEqual(expected.sort((a, b) => a[1].localeCompare(b[1])));
    expect(data.more).toBe(false);
    expect(textOf(result)).toContain('conversation,event,agent');
    expect(textOf(result)).toMatch(/<untrusted-data-/);
  });

  it('cuts a long answer at maxRows and says that more rows exist', async () => {
    const data = structured(await mirrored.call('query_workspace', { sql: 'SELECT id FROM conversations ORDER BY id', maxRows: 5 }));
    expect(data.rows).toHaveLength(5);
    expect(data.more).toBe(true);
    expect(textOf(await mirrored.call('query_workspace', { sql: 'SELECT id FROM conversations ORDER BY id', maxRows: 5 }))).toMatch(/^First 5 rows; more exist/m);
  });

  it.each([
    ["SELECT * FROM read_csv('/etc/passwd')", /table function read_csv/],
    ["SELECT * FROM '/etc/passwd'", /not a table of the mirror/],
    ["SELECT content FROM read_text('https://example.com')", /table function read_text/],
    ['SELECT * FROM duckdb_settings()', /table function duckdb_settings/],
    ["SELECT current_setting('memory_limit')", /current_setting/],
    ['SELECT * FROM information_schema.tables', /only this workspace's tables/],
    ['SELECT * FROM sync_windows', /not a table of the mirror/],
    ["ATTACH '/tmp/x.db' AS x", /only a SELECT/],
    ["COPY conversations TO '/tmp/out.csv'", /only a SELECT/],
    ["SET memory_limit = '10GB'", /only a SELECT/],
    ['PRAGMA database_list', /only a SELECT/],
    ['SELECT 1; SELECT 2', /one statement at a time/],
    ['DELETE FROM conversations', /only a SELECT/],
    ['INSTALL httpfs; LOAD httpfs', /only a SELECT/],
    ['SELECT * FROM workspace.main.conversations', /only this workspace's tables/],
    ["SELECT (SELECT value FROM duckdb_settings() WHERE name = 'threads')", /duckdb_settings/],
  ])('refuses %s before running it, naming why', async (sql, reason) => {
    const result = await mirrored.call('query_workspace', { sql });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(reason);
  });

  it('stops an endless recursion and a huge cross join within their limits, and stays up', async () => {
    const started = Date.now();
    const endless = await mirrored.call('query_workspace', { sql: 'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t' });
    expect(textOf(endless)).toMatch(/Stopped after 0.5 s/);
    const cross = await mirrored.call('query_workspace', { sql: 'SELECT count(*) FROM events a, events b, events c' });
    expect(cross.isError).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(structured(await mirrored.call('query_workspace', { sql: 'SELECT count(*) AS n FROM agents' })).rows).toEqual([[workspace().bots.size]]);
  });

  it('keeps itself true through a write: a thumbs-down given through svc-mcp counts at once, without a sync', async () => {
    await mirrored.call('sync_workspace', {});
    const conversation = listedIn(Date.now() - 3 * DAY, Date.now()).find((candidate) => candidate.events.some((event) => event.role === 'svcbot' && event.approved === null))!;
    const event = conversation.events.find((candidate) => candidate.role === 'svcbot' && candidate.approved === null)!;
    const before = structured(await mirrored.call('conversation_stats', { since: '4d' })).total.thumbsDown;
    structured(await mirrored.call('give_feedback', { interactionId: conversation.id, eventId: event.id, approved: false }));
    sandbox.clearRequests();
    const after = structured(await mirrored.call('conversation_stats', { since: '4d' }));
    expect(conversationPages()).toHaveLength(0);
    expect(after.total.thumbsDown).toBe(before + 1);
    const row = structured(await mirrored.call('query_workspace', { sql: `SELECT e.approved, c.resolved FROM events e JOIN conversations c ON c.id = e."interactionId" WHERE e.id = '${event.id}'` }));
    expect(row.rows).toEqual([[false, false]]);
  });

  it('keeps the ids of kinds no route lists, with the tool that showed them', async () => {
    await mirrored.call('sync_workspace', {});
    structured(await mirrored.call('get_replay', { replayId: sandbox.seed.replay }));
    structured(await mirrored.call('list_rule_versions', { ruleId: sandbox.seed.rules.whereIsMyOrder }));
    const seen = structured(await mirrored.call('query_workspace', { sql: "SELECT kind, id, \"seenIn\" FROM ids_seen WHERE kind IN ('replay', 'rule') ORDER BY kind" }));
    expect(seen.rows).toEqual([
      ['replay', sandbox.seed.replay, 'get_replay'],
      ['rule', sandbox.seed.rules.whereIsMyOrder, 'list_rule_versions'],
    ]);
  });

  it('describes its tables, and what it holds', async () => {
    const schema = await mirrored.client.readResource({ uri: 'svc://mirror/schema' });
    expect(String((schema.contents[0] as { text: string }).text)).toMatch(/## conversations: one row per conversation/);
    const status = await mirrored.client.readResource({ uri: 'svc://mirror/status' });
    expect(String((status.contents[0] as { text: string }).text)).toMatch(/^Held: \d+ conversations/m);
  });
});
