import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { apiRequests, callAsTask, connect, sandboxEnv, textOf, withSandbox, type Connection } from '../support/harness.js';

let sandbox: Sandbox;
let server: Connection;
const DAY = 86_400_000;

async function call(name: string, args: Record<string, unknown> = {}) {
  return (await server.client.callTool({ name, arguments: args })) as CallToolResult;
}

function structured<T = Record<string, any>>(result: CallToolResult): T {
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as T;
}

beforeAll(async () => {
  sandbox = await withSandbox();
  server = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'none' }) });
});

afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

beforeEach(() => {
  sandbox.clearRequests();
  sandbox.clearFaults();
});

/**
 * The expected figures, counted straight from the sandbox's stored conversations (its own agent
 * field, its own events), with nothing shared with the tool's counting code.
 */
function expectedStats(since: number) {
  const ws = sandbox.state.workspaces.get(sandbox.seed.workspaceA)!;
  const listed = [...ws.conversations.values()].filter((conversation) => conversation.touchedByService && conversation.createdAt >= since);
  const keys: Record<string, (conversation: (typeof listed)[number]) => [string, string]> = {
    agent: (conversation) => [conversation.botId, ws.bots.get(conversation.botId)!.name],
    source: (conversation) => [conversation.source, conversation.source],
    channel: (conversation) => [conversation.channel, conversation.channel],
  };
  const figures = (conversations: typeof listed) => {
    const events = conversations.flatMap((conversation) => conversation.events);
    const answers = events.filter((event) => event.role === 'svcbot');
    const up = answers.filter((event) => event.approved === true).length;
    const down = answers.filter((event) => event.approved === false);
    const ratings = events.map((event) => event.csatRating).filter((rating): rating is number => rating !== null);
    const distribution: Record<string, number> = {};
    for (const rating of ratings) distribution[rating] = (distribution[rating] ?? 0) + 1;
    const articles = new Map<string, { id: string; title: string; count: number }>();
    for (const article of down.flatMap((event) => event.usedArticles)) {
      const entry = articles.get(article.id) ?? { id: article.id, title: article.title, count: 0 };
      entry.count++;
      articles.set(article.id, entry);
    }
    return {
      conversations: conversations.length,
      answers: answers.filter((event) => event.type === 'message').length,
      thumbsUp: up,
      thumbsDown: down.length,
      negativeRate: up + down.length ? Math.round((down.length / (up + down.length)) * 1000) / 1000 : null,
      unresolvedNegative: down.filter((event) => event.resolved !== true).length,
      csat: {
        count: ratings.length,
        mean: ratings.length ? Math.round((ratings.reduce((a, b) => a + b, 0) / ratings.length) * 1000) / 1000 : null,
        distribution,
      },
      escalations: events.filter((event) => event.type === 'silent_escalation').length,
      negativeArticles: [...articles.values()].sort((a, b) => b.count - a.count || a.title.localeCompare(b.title)).slice(0, 5),
    };
  };
  const groups = Object.fromEntries(
    Object.entries(keys).map(([dimension, keyOf]) => {
      const byKey = new Map<string, { name: string; members: typeof listed }>();
      for (const conversation of listed) {
        const [id, name] = keyOf(conversation);
        const group = byKey.get(id) ?? { name, members: [] };
        group.members.push(conversation);
        byKey.set(id, group);
      }
      return [dimension, Object.fromEntries([...byKey].map(([id, { name, members }]) => [id, { id, name, ...figures(members) }]))];
    }),
  );
  return { total: figures(listed), groups, agentIds: [...ws.bots.keys()], botOf: new Map(listed.map((conversation) => [conversation.id, conversation.botId])) };
}

type Group = Record<string, unknown> & { id: string };

describe('conversation_stats and attribution', () => {
  it('counts by agent, source and channel over 200 days exactly as the sandbox data says, and reports its requests', async () => {
    const progress: string[] = [];
    const result = (await server.client.callTool({ name: 'conversation_stats', arguments: { since: '200d', groupBy: ['agent', 'source', 'channel'] } }, undefined, {
      onprogress: (update) => progress.push(update.message ?? ''),
    })) as CallToolResult;
    const data = structured(result);
    const expected = expectedStats(Date.now() - 200 * DAY);
    expect(data.complete).toBe(true);
    expect(data.count).toBe(expected.total.conversations);
    expect(data.total).toEqual(expected.total);
    for (const dimension of ['agent', 'source', 'channel']) {
      const groups = Object.fromEntries((data.groups[dimension] as Group[]).map((group) => [group.id, group]));
      expect(groups, dimension).toEqual(expected.groups[dimension]);
    }
    expect(progress.length).toBeGreaterThanOrEqual(expected.agentIds.length * 3);

    const requests = apiRequests(sandbox);
    expect(requests.filter((request) => request.path === '/v2/bots/public')).toHaveLength(1);
    const pages = requests.filter((request) => request.path === '/v2/hc-interactions/public');
    expect(pages.every((request) => expected.agentIds.includes(String(request.query.botId)))).toBe(true);
    expect(data.requests).toBe(requests.length);
    expect(data.note).toContain(`${requests.length} requests`);
    console.info(`conversation_stats over 200 days, seeded workspace: ${requests.length} upstream requests (${pages.length} pages, ${expected.agentIds.length} agents x 3 windows)`);

    const text = textOf(result);
    expect(text).toMatch(/\| agent \| conversations \| answers \|/);
    expect(text).toContain('Store Assistant');
    expect(text).toMatch(/\| total \| \d+ \|/);
  });

  it('names the agent of every exported conversation, and counts them by agent, source and channel', async () => {
    const exported = structured(await call('export_conversations', { since: '200d', maxConversations: 1000 }));
    const expected = expectedStats(Date.now() - 200 * DAY);
    const conversations = exported.interactions as Array<Record<string, unknown>>;
    expect(conversations).toHaveLength(expected.botOf.size);
    const names = new Map(sandbox.state.workspaces.get(sandbox.seed.workspaceA)!.bots);
    for (const conversation of conversations) {
      expect(conversation.botId, String(conversation.id)).toBe(expected.botOf.get(String(conversation.id)));
      expect(conversation.agentName).toBe(names.get(String(conversation.botId))!.name);
    }
    for (const dimension of ['agent', 'source', 'channel']) {
      const groups = Object.fromEntries((exported.stats.groups[dimension] as Group[]).map((group) => [group.id, group]));
      expect(groups, dimension).toEqual(expected.groups[dimension]);
    }
    expect(exported.requests).toBe(apiRequests(sandbox).length);
    console.info(`export_conversations over 200 days with attribution: ${exported.requests} upstream requests`);
  });

  it('returns the counts with the summary when export_conversations writes a file', async () => {
    const written = structured(await call('export_conversations', { since: '30d', feedback: 'negative', outputFile: 'answers-stats.ndjson' }));
    expect(written.file).toMatch(/answers-stats\.ndjson$/);
    expect(written.interactions).toBeUndefined();
    expect(written.stats.total.thumbsDown).toBeGreaterThan(0);
    expect(written.stats.total.conversations).toBe(written.count);
    expect(Object.keys(written.stats.groups)).toEqual(['agent', 'source', 'channel']);
  });

  it('queries only the given agent, still named, and groups by day and week', async () => {
    const botId = sandbox.seed.bots.emailSupport;
    const data = structured(await call('conversation_stats', { since: '30d', botId, groupBy: ['agent', 'week', 'day'] }));
    expect((data.groups.agent as Group[]).map((group) => [group.id, group.name])).toEqual([[botId, 'Email Support']]);
    const days = (data.groups.day as Group[]).map((group) => group.id);
    expect(days).toEqual([...days].sort());
    expect((data.groups.week as Group[]).reduce((total, group) => total + Number(group.conversations), 0)).toBe(data.count);
    const pages = apiRequests(sandbox).filter((request) => request.path === '/v2/hc-interactions/public');
    expect(pages.every((request) => request.query.botId === botId)).toBe(true);
  });

  it('says when maxConversations cut the count short', async () => {
    const data = structured(await call('conversation_stats', { since: '200d', maxConversations: 5 }));
    expect(data).toMatchObject({ complete: false, count: 5 });
    expect(data.total.conversations).toBe(5);
    expect(data.note).toContain('maxConversations=5');
    expect(textOf(await call('conversation_stats', { since: '200d', maxConversations: 5 }))).toContain('INCOMPLETE');
  });

  it('runs as an MCP task on request', async () => {
    const { kinds, result } = await callAsTask(server.client, 'conversation_stats', { since: '100d', groupBy: ['channel'] });
    expect(kinds[0]).toBe('taskCreated');
    expect(result?.isError).toBeFalsy();
    expect((result?.structuredContent as Record<string, any>).groups.channel.length).toBe(2);
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
