import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import type { Dimension } from '../../../src/views/results.js';
import { emptyTally, keyFromId, type ConversationStats, type Tally } from '../stats.js';
import type { ConversationFilters } from '../scan.js';

/** What conversation_stats asks of the mirror: the window, the filters the mirror applies itself, and a cut. */
export interface MirrorCount {
  since: number;
  until: number;
  filters: Pick<ConversationFilters, 'botId' | 'source' | 'channel'>;
  feedback?: 'negative' | 'positive';
  /** Only conversations in which one of the agent's answers used this article. */
  usedArticle?: string;
  /** Count the newest this many only. */
  max?: number;
}

/** Each dimension's group of a conversation `p`, as keyOf (tools/lib/stats.ts) names it, in SQL. */
const KEY_SQL: Record<Dimension, string> = {
  agent: 'p."botId"',
  source: "coalesce(p.source, 'unknown')",
  channel: "coalesce(p.channel, 'unknown')",
  day: `strftime(p."createdAt", '%Y-%m-%d')`,
  week: `strftime(date_trunc('week', p."createdAt"), '%Y-%m-%d')`,
  month: `strftime(p."createdAt", '%Y-%m')`,
  quarter: `strftime(p."createdAt", '%Y') || '-Q' || CAST(quarter(p."createdAt") AS VARCHAR)`,
};

/**
 * Counts a window's conversations in the mirror into `stats`, with the same figures, by the same
 * definitions, as a scan of the API counts them: each conversation's figures were counted by that
 * same code (tallyOf) when it was read, the SQL sums them per group, and `ConversationStats.addCounted`
 * does the rest, so the rates, the top articles and the comparison come from the one code. Only
 * agents the workspace lists now are counted, each conversation under the agent it was listed for.
 * Returns how many conversations were counted.
 */
export async function countInMirror(mirror: WorkspaceMirror, dimensions: readonly Dimension[], request: MirrorCount, stats: ConversationStats): Promise<number> {
  const { sql: picked, values } = pickedSql(request);
  const keys = dimensions.map((dimension, index) => `${KEY_SQL[dimension]} AS k${index}`);
  const keyNames = dimensions.map((_dimension, index) => `k${index}`);
  const groupBy = (...more: string[]) => ([...keyNames, ...more].length ? `GROUP BY ${[...keyNames, ...more].join(', ')}` : '');
  const select = (...more: string[]) => [...keys, ...more].join(', ');
  const sums = await mirror.rows(
    `WITH p AS (${picked}) SELECT ${select(
      'any_value(p."agentName") AS "agentName"',
      'CAST(count(*) AS DOUBLE) AS conversations',
      ...SUMMED.map((figure) => `CAST(coalesce(sum(f."${figure}"), 0) AS DOUBLE) AS "${figure}"`),
    )} FROM p LEFT JOIN conversation_figures f ON f.id = p.id ${groupBy()}`,
    values,
  );
  const ratings = await mirror.rows(
    `WITH p AS (${picked}) SELECT ${select('r.rating AS rating', 'CAST(sum(r.times) AS DOUBLE) AS times')} FROM p JOIN csat_ratings r ON r."interactionId" = p.id ${groupBy('r.rating')}`,
    values,
  );
  const articles = await mirror.rows(
    `WITH p AS (${picked}) SELECT ${select('a."articleId" AS id', 'min(a.title) AS title', 'CAST(sum(a.times) AS DOUBLE) AS times')} FROM p JOIN negative_articles a ON a."interactionId" = p.id ${groupBy('a."articleId"')}`,
    values,
  );
  const cellOf = (row: Record<string, unknown>) => JSON.stringify(keyNames.map((name) => row[name]));
  const tallies = new Map<string, { row: Record<string, unknown>; tally: Tally }>();
  for (const row of sums) {
    const tally = emptyTally();
    tally.conversations = Number(row.conversations);
    for (const figure of SUMMED) tally[figure] = Number(row[figure]);
    if (tally.conversations > 0) tallies.set(cellOf(row), { row, tally });
  }
  for (const row of ratings) tallies.get(cellOf(row))?.tally.csatRatings.set(Number(row.rating), Number(row.times));
  for (const row of articles) {
    const id = String(row.id);
    tallies.get(cellOf(row))?.tally.negativeArticles.set(id, { id, title: typeof row.title === 'string' ? row.title : null, count: Number(row.times) });
  }
  let counted = 0;
  for (const { row, tally } of tallies.values()) {
    stats.addCounted(
      dimensions.map((dimension, index) => keyFromId(dimension, String(row[`k${index}`]), row.agentName as string | null)),
      tally,
    );
    counted += tally.conversations;
  }
  return counted;
}

/** The per-conversation figures conversation_figures holds, summed per group. */
const SUMMED = ['answers', 'thumbsUp', 'thumbsDown', 'unresolvedNegative', 'csatCount', 'csatSum', 'escalations'] as const;

/** How many conversations match the window and filters, whatever the cut. */
export async function matchingInMirror(mirror: WorkspaceMirror, request: MirrorCount): Promise<number> {
  const { sql, values } = pickedSql({ ...request, max: undefined });
  const [row] = await mirror.rows(`SELECT CAST(count(*) AS DOUBLE) AS n FROM (${sql})`, values);
  return Number(row?.n ?? 0);
}

/** The conversations a count takes, as SQL with its values bound: window, filters, feedback, and the newest `max`. */
export function pickedSql(request: MirrorCount): { sql: string; values: Array<string | number | string[]> } {
  const values: Array<string | number | string[]> = [request.since, request.until];
  const where = ['c."createdAt" BETWEEN epoch_ms(CAST($1 AS BIGINT)) AND epoch_ms(CAST($2 AS BIGINT))'];
  const bind = (value: string | number | string[]) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (request.filters.botId !== undefined) where.push(`c."botId" = ${bind(request.filters.botId)}`);
  if (request.filters.source) where.push(`c.source IN (SELECT unnest(${bind(request.filters.source)}))`);
  if (request.filters.channel) where.push(`c.channel IN (SELECT unnest(${bind(request.filters.channel)}))`);
  if (request.usedArticle !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM used_articles u JOIN events a ON a.id = u."eventId" WHERE u."interactionId" = c.id AND a."interactionId" = c.id AND a.role = 'svcbot' AND u."articleId" = ${bind(request.usedArticle)})`,
    );
  }
  if (request.feedback) where.push(`EXISTS (SELECT 1 FROM events f WHERE f."interactionId" = c.id AND f.approved = ${request.feedback === 'positive' ? 'true' : 'false'})`);
  // An integer the input schema checked, so it is written as it is.
  const cut = request.max !== undefined ? ` ORDER BY c."createdAt" DESC, c.id LIMIT ${Math.trunc(request.max)}` : '';
  return {
    sql: `SELECT c.id, c."botId", nullif(trim(a.name), '') AS "agentName", c.source, c.channel, c."createdAt" FROM conversations c JOIN agents a ON a.id = c."botId" WHERE ${where.join(' AND ')}${cut}`,
    values,
  };
}
