/**
 * The figures conversation_stats should give, counted straight from the sandbox's stored
 * conversations (its own agent field, its own events), with nothing shared with the tool's counting
 * code: the scan's, or the mirror's SQL.
 */
import type { Sandbox } from '../../src/sandbox/index.js';
import type { Conversation } from '../../src/sandbox/types.js';

const DAY = 86_400_000;

export type CountedGroup = Record<string, any> & { id: string };

export function independentCount(sandbox: () => Sandbox) {
  const workspace = () => sandbox().state.workspaces.get(sandbox().seed.workspaceA)!;
  const listedIn = (since: number, until: number) =>
    [...workspace().conversations.values()].filter((conversation) => conversation.touchedByService && conversation.createdAt >= since && conversation.createdAt <= until);

  function figures(conversations: Conversation[]) {
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
    const ranked = [...articles.values()].sort((a, b) => b.count - a.count || a.title.localeCompare(b.title));
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
      negativeArticles: ranked.slice(0, 5),
      ...(ranked.length > 5 ? { negativeArticlesLeftOut: ranked.length - 5 } : {}),
    };
  }

  /** Each dimension's value of a conversation: its id, and the name a group of it shows. */
  const dimensions: Record<string, (conversation: Conversation) => [string, string]> = {
    agent: (conversation) => [conversation.botId, workspace().bots.get(conversation.botId)!.name],
    source: (conversation) => [conversation.source, conversation.source],
    channel: (conversation) => [conversation.channel, conversation.channel],
    day: (conversation) => {
      const day = new Date(conversation.createdAt).toISOString().slice(0, 10);
      return [day, day];
    },
    week: (conversation) => {
      // Day 0 of the epoch was a Thursday, three days after a Monday.
      const day = Math.floor(conversation.createdAt / DAY);
      const monday = new Date((day - ((day + 3) % 7)) * DAY).toISOString().slice(0, 10);
      return [monday, `week of ${monday}`];
    },
    month: (conversation) => {
      const month = new Date(conversation.createdAt).toISOString().slice(0, 7);
      return [month, month];
    },
    quarter: (conversation) => {
      const date = new Date(conversation.createdAt);
      const quarter = `${date.getUTCFullYear()}-Q${[1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4][date.getUTCMonth()]}`;
      return [quarter, quarter];
    },
  };

  function groupsBy(dimension: string, conversations: Conversation[]) {
    const byId = new Map<string, { name: string; members: Conversation[] }>();
    for (const conversation of conversations) {
      const [id, name] = dimensions[dimension](conversation);
      const group = byId.get(id) ?? { name, members: [] };
      group.members.push(conversation);
      byId.set(id, group);
    }
    return byId;
  }

  function expectedGroups(dimension: string, conversations: Conversation[]) {
    return Object.fromEntries([...groupsBy(dimension, conversations)].map(([id, { name, members }]) => [id, { id, name, ...figures(members) }]));
  }

  /** How a conversation is named in a keyed group: the agent by botId and name, the rest by value. */
  function keysOf(conversation: Conversation, names: string[]): Record<string, string> {
    const keys: Record<string, string> = {};
    for (const dimension of names) {
      const [id, name] = dimensions[dimension](conversation);
      if (dimension === 'agent') Object.assign(keys, { botId: id, agent: name });
      else keys[dimension] = id;
    }
    return keys;
  }

  function expectedCrossed(names: string[], conversations: Conversation[]) {
    const cells = new Map<string, Conversation[]>();
    for (const conversation of conversations) {
      const key = JSON.stringify(keysOf(conversation, names));
      cells.set(key, [...(cells.get(key) ?? []), conversation]);
    }
    return Object.fromEntries([...cells].map(([key, members]) => [key, { ...JSON.parse(key), ...figures(members) }]));
  }

  const byId = (groups: CountedGroup[]) => Object.fromEntries(groups.map((group) => [group.id, group]));
  const keyOfCrossed = (group: Record<string, any>, names: string[]) =>
    JSON.stringify(
      Object.fromEntries(
        names.flatMap((dimension) =>
          dimension === 'agent'
            ? [
                ['botId', group.botId],
                ['agent', group.agent],
              ]
            : [[dimension, group[dimension]]],
        ),
      ),
    );

  return { workspace, listedIn, figures, dimensions, groupsBy, expectedGroups, expectedCrossed, byId, keyOfCrossed };
}
