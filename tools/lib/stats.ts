import { isRecord } from '../../src/json.js';
import { defined } from './records.js';
import type { AttributedConversation } from './scan.js';
import {
  CHRONOLOGICAL,
  type ArticleCount,
  type Change,
  type Counts,
  type Dimension,
  type ExportStats,
  type Group,
  type GroupKeys,
  type KeyedGroup,
  type Stats,
  type StatsResult,
} from '../../src/views/results.js';

const TOP_ARTICLES = 5;

/** The sums behind a group's figures: what the mirror counts in SQL and a scan counts conversation by conversation. */
export interface Tally {
  conversations: number;
  answers: number;
  thumbsUp: number;
  thumbsDown: number;
  unresolvedNegative: number;
  csatCount: number;
  csatSum: number;
  /** Rating given -> times: bounded by the ratings that exist (0..5), not by conversations. */
  csatRatings: Map<number, number>;
  escalations: number;
  negativeArticles: Map<string, ArticleCount>;
}

export const emptyTally = (): Tally => ({
  conversations: 0,
  answers: 0,
  thumbsUp: 0,
  thumbsDown: 0,
  unresolvedNegative: 0,
  csatCount: 0,
  csatSum: 0,
  csatRatings: new Map(),
  escalations: 0,
  negativeArticles: new Map(),
});

/** The figures of one conversation, as the definitions above count them (the mirror keeps them per conversation). */
export function tallyOf(conversation: Record<string, unknown>): Tally {
  const tally = emptyTally();
  tally.conversations = 1;
  const events = Array.isArray(conversation.events) ? conversation.events.filter(isRecord) : [];
  for (const event of events) {
    if (typeof event.csatRating === 'number') {
      tally.csatCount++;
      tally.csatSum += event.csatRating;
      tally.csatRatings.set(event.csatRating, (tally.csatRatings.get(event.csatRating) ?? 0) + 1);
    }
    if (event.type === 'silent_escalation') tally.escalations++;
    if (event.role !== 'svcbot') continue;
    if (event.type === 'message') tally.answers++;
    if (event.approved === true) tally.thumbsUp++;
    if (event.approved !== false) continue;
    tally.thumbsDown++;
    if (event.resolved !== true) tally.unresolvedNegative++;
    for (const article of Array.isArray(event.usedArticles) ? event.usedArticles.filter(isRecord) : []) {
      const id = String(article.id);
      const entry = tally.negativeArticles.get(id) ?? { id, title: typeof article.title === 'string' ? article.title : null, count: 0 };
      entry.count++;
      tally.negativeArticles.set(id, entry);
    }
  }
  return tally;
}

/** Adds `part` into `tally`: every figure is a sum, so groups counted apart add up. */
function addTally(tally: Tally, part: Tally): void {
  tally.conversations += part.conversations;
  tally.answers += part.answers;
  tally.thumbsUp += part.thumbsUp;
  tally.thumbsDown += part.thumbsDown;
  tally.unresolvedNegative += part.unresolvedNegative;
  tally.csatCount += part.csatCount;
  tally.csatSum += part.csatSum;
  tally.escalations += part.escalations;
  for (const [rating, times] of part.csatRatings) tally.csatRatings.set(rating, (tally.csatRatings.get(rating) ?? 0) + times);
  for (const [id, article] of part.negativeArticles) {
    const entry = tally.negativeArticles.get(id) ?? { id, title: article.title, count: 0 };
    entry.count += article.count;
    tally.negativeArticles.set(id, entry);
  }
}

function countsOf(tally: Tally): Counts {
  const rated = tally.thumbsUp + tally.thumbsDown;
  const distribution: Record<string, number> = {};
  for (const rating of [...tally.csatRatings.keys()].sort((a, b) => a - b)) distribution[String(rating)] = tally.csatRatings.get(rating)!;
  const articles = [...tally.negativeArticles.values()].sort((a, b) => b.count - a.count || String(a.title).localeCompare(String(b.title)));
  const counts: Counts = {
    conversations: tally.conversations,
    answers: tally.answers,
    thumbsUp: tally.thumbsUp,
    thumbsDown: tally.thumbsDown,
    negativeRate: rated ? round(tally.thumbsDown / rated) : null,
    unresolvedNegative: tally.unresolvedNegative,
    csat: { count: tally.csatCount, mean: tally.csatCount ? round(tally.csatSum / tally.csatCount) : null, distribution },
    escalations: tally.escalations,
    negativeArticles: articles.slice(0, TOP_ARTICLES),
  };
  if (articles.length > TOP_ARTICLES) counts.negativeArticlesLeftOut = articles.length - TOP_ARTICLES;
  return counts;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** UTC day of the conversation's createdAt; weeks are ISO weeks named by their Monday. */
function dayOf(createdAt: unknown): string {
  return typeof createdAt === 'number' ? new Date(createdAt).toISOString().slice(0, 10) : 'unknown';
}

function weekOf(createdAt: unknown): string {
  if (typeof createdAt !== 'number') return 'unknown';
  const date = new Date(createdAt);
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  return dayOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - sinceMonday));
}

function keyOf(dimension: Dimension, conversation: AttributedConversation): { id: string; name: string } {
  switch (dimension) {
    case 'agent':
      return { id: conversation.botId, name: conversation.agentName ?? conversation.botId };
    case 'source':
    case 'channel': {
      const value = String(conversation[dimension] ?? 'unknown');
      return { id: value, name: value };
    }
    case 'day': {
      const day = dayOf(conversation.createdAt);
      return { id: day, name: day };
    }
    case 'week': {
      const monday = weekOf(conversation.createdAt);
      return { id: monday, name: `week of ${monday}` };
    }
    case 'month': {
      const month = dayOf(conversation.createdAt).slice(0, 7);
      return { id: month, name: month };
    }
    case 'quarter': {
      const quarter = quarterOf(conversation.createdAt);
      return { id: quarter, name: quarter };
    }
  }
}

/** `2026-Q1`: the UTC calendar quarter of the conversation's createdAt. */
function quarterOf(createdAt: unknown): string {
  if (typeof createdAt !== 'number') return 'unknown';
  const date = new Date(createdAt);
  return `${date.getUTCFullYear()}-Q${Math.floor(date.getUTCMonth() / 3) + 1}`;
}

/** A group's key as keyOf names it, from the id the mirror's SQL computes (a date group's id is its name but for weeks). */
export function keyFromId(dimension: Dimension, id: string, agentName?: string | null): { id: string; name: string } {
  if (dimension === 'agent') return { id, name: agentName ?? id };
  if (dimension === 'week') return { id, name: `week of ${id}` };
  return { id, name: id };
}

/** How a group of several dimensions is named: the agent by name and botId, the others by their value. */
function keysOf(dimensions: readonly Dimension[], ids: readonly string[], names: readonly string[]): GroupKeys {
  const keys: GroupKeys = {};
  dimensions.forEach((dimension, index) => {
    if (dimension === 'agent') {
      keys.botId = ids[index];
      keys.agent = names[index];
    } else {
      keys[dimension] = ids[index];
    }
  });
  return keys;
}

const byDimension = (dimension: Dimension) =>
  CHRONOLOGICAL.includes(dimension) ? (a: Group, b: Group) => a.id.localeCompare(b.id) : (a: Group, b: Group) => b.conversations - a.conversations || a.id.localeCompare(b.id);

/**
 * Counts conversations as they stream past, keeping none: in total, per group of each dimension
 * asked for, and, for two dimensions crossed, per pair of groups. Memory grows with the number
 * of groups (agents, sources, days in the window), never with the number of conversations.
 */
export class ConversationStats {
  private readonly total = emptyTally();
  private readonly groups = new Map<Dimension, Map<string, { name: string; tally: Tally }>>();
  private readonly crossed?: Map<string, { ids: string[]; names: string[]; tally: Tally }>;
  /** For export_conversations: conversations per pair of groups of two dimensions, which tells which groups hold the same conversations. */
  private readonly pairs = new Map<string, number>();

  constructor(
    private readonly dimensions: readonly Dimension[],
    private readonly options: { cross?: boolean; pairs?: boolean } = {},
  ) {
    for (const dimension of dimensions) this.groups.set(dimension, new Map());
    if (options.cross) this.crossed = new Map();
  }

  add(conversation: AttributedConversation): void {
    this.addCounted(
      this.dimensions.map((dimension) => keyOf(dimension, conversation)),
      tallyOf(conversation),
    );
  }

  /** Conversations counted elsewhere (the mirror's SQL), all under the same group of each dimension (`keys`, in order). */
  addCounted(keys: ReadonlyArray<{ id: string; name: string }>, tally: Tally): void {
    addTally(this.total, tally);
    this.dimensions.forEach((dimension, index) => {
      const { id, name } = keys[index];
      const groups = this.groups.get(dimension)!;
      const group = groups.get(id) ?? { name, tally: emptyTally() };
      addTally(group.tally, tally);
      groups.set(id, group);
    });
    if (this.crossed) {
      const ids = keys.map((key) => key.id);
      const crossKey = JSON.stringify(ids);
      const cell = this.crossed.get(crossKey) ?? { ids, names: keys.map((key) => key.name), tally: emptyTally() };
      addTally(cell.tally, tally);
      this.crossed.set(crossKey, cell);
    }
    if (this.options.pairs) {
      for (let first = 0; first < keys.length; first++) {
        for (let second = first + 1; second < keys.length; second++) {
          const pair = pairKey(this.dimensions[first], keys[first].id, this.dimensions[second], keys[second].id);
          this.pairs.set(pair, (this.pairs.get(pair) ?? 0) + tally.conversations);
        }
      }
    }
  }

  result(): Stats {
    const groups: Stats['groups'] = {};
    for (const [dimension, entries] of this.groups) {
      groups[dimension] = [...entries].map(([id, { name, tally }]): Group => ({ id, name, ...countsOf(tally) })).sort(byDimension(dimension));
    }
    const stats: Stats = { total: countsOf(this.total), groups };
    if (this.crossed) {
      const order = this.dimensions.map((dimension) => new Map((groups[dimension] ?? []).map((group, index) => [group.id, index])));
      const cells = [...this.crossed.values()].sort((a, b) => order[0].get(a.ids[0])! - order[0].get(b.ids[0])! || order[1].get(a.ids[1])! - order[1].get(b.ids[1])!);
      stats.crossed = cells.map((cell) => ({ ...keysOf(this.dimensions, cell.ids, cell.names), ...countsOf(cell.tally) }));
    }
    return stats;
  }

  /**
   * export_conversations' counts: every set of conversations once. A group that holds exactly the
   * conversations of a group of another dimension (all of the agent's came from one source, and
   * nothing else did) is one entry named by both; a group that holds every conversation names the total.
   */
  exportResult(): ExportStats {
    const { total, groups } = this.result();
    const keyed: Array<{ dimension: Dimension; group: Group; keys: GroupKeys }> = [];
    const totalKeys: GroupKeys = {};
    for (const dimension of this.dimensions) {
      for (const group of groups[dimension] ?? []) {
        const keys = keysOf([dimension], [group.id], [group.name]);
        if (group.conversations === total.conversations) {
          Object.assign(totalKeys, keys);
          continue;
        }
        const same = keyed.find((entry) => entry.group.conversations === group.conversations && this.pairs.get(pairKey(entry.dimension, entry.group.id, dimension, group.id)) === group.conversations);
        if (same) Object.assign(same.keys, keys);
        else keyed.push({ dimension, group, keys });
      }
    }
    return {
      totalRead: { ...totalKeys, ...total },
      groups: keyed.map(({ group: { id: _id, name: _name, ...counts }, keys }): KeyedGroup => ({ ...keys, ...counts })),
    };
  }
}

const pairKey = (first: Dimension, firstId: string, second: Dimension, secondId: string) => JSON.stringify([first, firstId, second, secondId]);

/** The figures of a group a window does not have. */
export const NONE = countsOf(emptyTally());

function difference(now: Counts = NONE, before: Counts = NONE): Change {
  const minus = (x: number | null, y: number | null) => (x === null || y === null ? null : round(x - y));
  return {
    conversations: now.conversations - before.conversations,
    answers: now.answers - before.answers,
    thumbsUp: now.thumbsUp - before.thumbsUp,
    thumbsDown: now.thumbsDown - before.thumbsDown,
    negativeRate: minus(now.negativeRate, before.negativeRate),
    unresolvedNegative: now.unresolvedNegative - before.unresolvedNegative,
    csat: { count: now.csat.count - before.csat.count, mean: minus(now.csat.mean, before.csat.mean) },
    escalations: now.escalations - before.escalations,
  };
}

/** Crossed groups of agents, sources and channels, matched across two windows. */
export const crossedKey = (group: GroupKeys) => JSON.stringify([group.botId, group.source, group.channel]);

/** `change` of a comparison: the total, and each group that is not a date, matched by id across the two windows. */
export function changeOf(now: Stats, before: Stats): NonNullable<StatsResult['change']> {
  const groups: NonNullable<StatsResult['change']>['groups'] = {};
  const dimensions = Object.keys(now.groups) as Dimension[];
  for (const dimension of dimensions) {
    if (CHRONOLOGICAL.includes(dimension)) continue;
    const earlier = new Map((before.groups[dimension] ?? []).map((group) => [group.id, group]));
    const later = new Map((now.groups[dimension] ?? []).map((group) => [group.id, group]));
    groups[dimension] = [...new Set([...later.keys(), ...earlier.keys()])].map((id) => ({ id, name: (later.get(id) ?? earlier.get(id))!.name, ...difference(later.get(id), earlier.get(id)) }));
  }
  const change: NonNullable<StatsResult['change']> = { total: difference(now.total, before.total), groups };
  if (now.crossed && !dimensions.some((dimension) => CHRONOLOGICAL.includes(dimension))) {
    const earlier = new Map((before.crossed ?? []).map((group) => [crossedKey(group), group]));
    const later = new Map(now.crossed.map((group) => [crossedKey(group), group]));
    change.crossed = [...new Set([...later.keys(), ...earlier.keys()])].map((key) => {
      const { botId, agent, source, channel } = (later.get(key) ?? earlier.get(key))!;
      return { ...(defined({ botId, agent, source, channel }) as GroupKeys), ...difference(later.get(key), earlier.get(key)) };
    });
  }
  return change;
}
