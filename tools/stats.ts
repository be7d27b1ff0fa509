import { isRecord } from '../src/engine/output.js';
import type { Quote } from './diff.js';
import type { AttributedConversation } from './scan.js';
import { formatMean, formatPercent, type ArticleCount, type Counts, type Dimension, type Group, type Stats, type StatsResult } from './results.js';

const TOP_ARTICLES = 5;

interface Tally {
  conversations: number;
  answers: number;
  thumbsUp: number;
  thumbsDown: number;
  unresolvedNegative: number;
  csat: number[];
  escalations: number;
  negativeArticles: Map<string, ArticleCount>;
}

const emptyTally = (): Tally => ({ conversations: 0, answers: 0, thumbsUp: 0, thumbsDown: 0, unresolvedNegative: 0, csat: [], escalations: 0, negativeArticles: new Map() });

function addConversation(tally: Tally, conversation: Record<string, unknown>): void {
  tally.conversations++;
  const events = Array.isArray(conversation.events) ? conversation.events.filter(isRecord) : [];
  for (const event of events) {
    if (typeof event.csatRating === 'number') tally.csat.push(event.csatRating);
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
}

function countsOf(tally: Tally): Counts {
  const rated = tally.thumbsUp + tally.thumbsDown;
  const distribution: Record<string, number> = {};
  for (const rating of [...tally.csat].sort((a, b) => a - b)) distribution[String(rating)] = (distribution[String(rating)] ?? 0) + 1;
  const sum = tally.csat.reduce((total, rating) => total + rating, 0);
  return {
    conversations: tally.conversations,
    answers: tally.answers,
    thumbsUp: tally.thumbsUp,
    thumbsDown: tally.thumbsDown,
    negativeRate: rated ? round(tally.thumbsDown / rated) : null,
    unresolvedNegative: tally.unresolvedNegative,
    csat: { count: tally.csat.length, mean: tally.csat.length ? round(sum / tally.csat.length) : null, distribution },
    escalations: tally.escalations,
    negativeArticles: [...tally.negativeArticles.values()].sort((a, b) => b.count - a.count || String(a.title).localeCompare(String(b.title))).slice(0, TOP_ARTICLES),
  };
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
  }
}

const CHRONOLOGICAL = new Set<Dimension>(['day', 'week']);

/** Counts conversations as they stream past: in total and per group of each dimension asked for. */
export class ConversationStats {
  private readonly total = emptyTally();
  private readonly groups = new Map<Dimension, Map<string, { name: string; tally: Tally }>>();

  constructor(private readonly dimensions: readonly Dimension[]) {
    for (const dimension of dimensions) this.groups.set(dimension, new Map());
  }

  add(conversation: AttributedConversation): void {
    addConversation(this.total, conversation);
    for (const dimension of this.dimensions) {
      const { id, name } = keyOf(dimension, conversation);
      const groups = this.groups.get(dimension)!;
      const group = groups.get(id) ?? { name, tally: emptyTally() };
      addConversation(group.tally, conversation);
      groups.set(id, group);
    }
  }

  result(): Stats {
    const groups: Stats['groups'] = {};
    for (const [dimension, entries] of this.groups) {
      const list = [...entries].map(([id, { name, tally }]): Group => ({ id, name, ...countsOf(tally) }));
      groups[dimension] = CHRONOLOGICAL.has(dimension)
        ? list.sort((a, b) => a.id.localeCompare(b.id))
        : list.sort((a, b) => b.conversations - a.conversations || a.id.localeCompare(b.id));
    }
    return { total: countsOf(this.total), groups };
  }
}


function row(label: string, counts: Counts): string {
  return `| ${label} | ${counts.conversations} | ${counts.answers} | ${counts.thumbsUp} | ${counts.thumbsDown} | ${formatPercent(counts.negativeRate)} | ${counts.unresolvedNegative} | ${counts.csat.count} | ${formatMean(counts.csat.mean)} | ${counts.escalations} |`;
}

const HEADER = '| conversations | answers | thumbs up | thumbs down | negative | unresolved negative | CSAT ratings | CSAT mean | escalations |';

function articleLine(articles: ArticleCount[], quote: Quote): string {
  return quote(articles.map((article) => `${article.title ?? article.id} (${article.id}) x${article.count}`).join('; '));
}

/** Text rendering of conversation_stats: the scan in one line, one small table per dimension, then the articles behind thumbs-down answers. */
export function renderStats(data: unknown, quote: Quote): string {
  const result = data as StatsResult;
  const lines = [`Conversations created ${result.since} to ${result.until}: ${result.count} counted${result.complete ? '' : ' (INCOMPLETE: cut short at maxConversations)'}.`];
  if (result.note) lines.push(result.note);
  const quoteName = (dimension: Dimension, name: string) => (dimension === 'agent' ? quote(name) : name);
  for (const [dimension, groups] of Object.entries(result.groups) as Array<[Dimension, Group[]]>) {
    lines.push('', `By ${dimension}:`, `| ${dimension} ${HEADER}`, `|---${'|---'.repeat(9)}|`);
    for (const group of groups) lines.push(row(quoteName(dimension, group.name), group));
    lines.push(row('total', result.total));
    const withArticles = groups.filter((group) => group.negativeArticles.length);
    if (dimension === 'agent' && withArticles.length) {
      lines.push('Articles used in thumbs-down answers:');
      for (const group of withArticles) lines.push(`- ${quote(group.name)}: ${articleLine(group.negativeArticles, quote)}`);
    }
  }
  if (!result.groups.agent && result.total.negativeArticles.length) {
    lines.push('', `Articles used in thumbs-down answers: ${articleLine(result.total.negativeArticles, quote)}`);
  }
  return lines.join('\n');
}
