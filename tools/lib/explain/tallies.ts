import type { ToolContext } from '../../../src/engine/define.js';
import { MirrorUnavailable } from '../../../src/mirror/database.js';
import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import { isRecord } from '../../../src/json.js';
import { readKnowledge } from '../mirror/knowledge.js';
import { tallyInMirror } from '../mirror/movers-sql.js';
import { syncWindow } from '../mirror/sync.js';
import type { Interval } from '../mirror/windows.js';
import { scanConversations, type ConversationFilters } from '../scan.js';
import { changesFromApi, changesInMirror, type KnowledgeChange } from './knowledge-changes.js';
import { countConversation, emptyWindow, type Metric, type WindowTally } from './movers.js';

export interface TallyAsk {
  metric: Metric;
  /** Oldest first; each conversation is counted in the window its createdAt falls in. */
  windows: Interval[];
  filters: Pick<ConversationFilters, 'botId' | 'source' | 'channel'>;
  /** Only conversations in which one of the agent's answers used this article. */
  usedArticle?: string;
  /** Also the knowledge changed in this span. */
  knowledge?: Interval;
}

export interface Tallies {
  windows: WindowTally[];
  knowledge?: { changes: KnowledgeChange[]; more: number };
  requests: number;
  /** When the mirror answered: when the reading it relies on began. */
  asOf?: string;
}

/**
 * Each window's units, from the workspace mirror (brought up to date for the span first, its
 * knowledge too when asked) or, without it, from one scan of the API over the span. Both count by
 * the same rules (tools/lib/explain/movers.ts).
 */
export async function tallyWindows(context: ToolContext, ask: TallyAsk, verb: string): Promise<Tallies> {
  const mirror = await openedMirror(context);
  return mirror ? fromMirror(context, mirror, ask, verb) : fromApi(context, ask, verb);
}

async function openedMirror(context: ToolContext): Promise<WorkspaceMirror | undefined> {
  try {
    return await context.mirror?.open();
  } catch (error) {
    if (error instanceof MirrorUnavailable) return undefined;
    throw error;
  }
}

async function fromMirror(context: ToolContext, mirror: WorkspaceMirror, ask: TallyAsk, verb: string): Promise<Tallies> {
  const span = { since: ask.windows[0].since, until: ask.windows.at(-1)!.until };
  const report = await syncWindow(context, mirror, { ...span, refresh: 'stale', knowledge: ask.knowledge !== undefined, verb });
  const windows: WindowTally[] = [];
  for (const window of ask.windows) windows.push(await tallyInMirror(mirror, ask.metric, { ...window, filters: ask.filters, usedArticle: ask.usedArticle }));
  const knowledge = ask.knowledge ? await changesInMirror(mirror, ask.knowledge.since, ask.knowledge.until) : undefined;
  return { windows, knowledge, requests: report.requests, asOf: new Date(report.asOf).toISOString() };
}

async function fromApi(context: ToolContext, ask: TallyAsk, verb: string): Promise<Tallies> {
  const windows = ask.windows.map(() => emptyWindow());
  const span = { since: ask.windows[0].since, until: ask.windows.at(-1)!.until };
  const keep =
    ask.usedArticle === undefined ? undefined : { test: (conversation: Record<string, unknown>) => answerUsed(conversation, ask.usedArticle!), label: `article ${ask.usedArticle} used in an answer` };
  const summary = await scanConversations(context, { filters: ask.filters, ...span, keep, verb }, (conversation) => {
    const index = ask.windows.findIndex((window) => Number(conversation.createdAt) >= window.since && Number(conversation.createdAt) <= window.until);
    if (index >= 0) countConversation(windows[index], ask.metric, conversation);
  });
  const knowledge = ask.knowledge ? await changesFromApi(context, ask.knowledge.since, ask.knowledge.until) : undefined;
  return { windows, knowledge, requests: summary.requests + (knowledge ? 3 : 0) };
}

function answerUsed(conversation: Record<string, unknown>, articleId: string): boolean {
  const events = Array.isArray(conversation.events) ? conversation.events.filter(isRecord) : [];
  return events.some((event) => event.role === 'svcbot' && Array.isArray(event.usedArticles) && event.usedArticles.some((article) => isRecord(article) && article.id === articleId));
}

/** The article's last update, from the mirror (its knowledge read first) or one request for it. */
export async function lastUpdateOf(context: ToolContext, articleId: string): Promise<{ at: number; title: string; version: unknown } | undefined> {
  const mirror = await openedMirror(context);
  if (mirror) {
    await mirror.exclusive(() => readKnowledge(context, mirror, async () => undefined));
    const [row] = await mirror.rows('SELECT title, version, CAST(epoch_ms("updatedAt") AS DOUBLE) AS at FROM articles WHERE id = $1', [articleId]);
    return row ? { at: Number(row.at), title: String(row.title ?? ''), version: row.version } : undefined;
  }
  const found = await context.call('get_articles', { articleIds: [articleId] });
  const article = (Array.isArray(found) ? found : []).find((record) => isRecord(record) && record.id === articleId) as Record<string, unknown> | undefined;
  const at = article ? Date.parse(String(article.updatedAt)) : Number.NaN;
  return article && !Number.isNaN(at) ? { at, title: String(article.title ?? ''), version: article.version } : undefined;
}
