import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import { addTo, emptyWindow, NO_ARTICLE, type Metric, type WindowTally } from '../explain/movers.js';
import { pickedSql, type MirrorCount } from './figures.js';

/** Each metric's units among a window's events, and what each is worth (tools/lib/explain/movers.ts). */
const UNITS: Record<Metric, { worth: string; where: string }> = {
  negativeRate: { worth: 'CASE WHEN e.approved THEN 0 ELSE 1 END', where: "e.role = 'svcbot' AND e.approved IS NOT NULL" },
  csat: { worth: 'e."csatRating"', where: 'e."csatRating" IS NOT NULL' },
  escalations: { worth: '1', where: "e.type = 'silent_escalation'" },
};

/**
 * A window's units counted in the mirror, as countConversation counts them from listed
 * conversations: per agent, source and channel, and per article with each unit's worth split
 * evenly over the articles it used (the answer's own for ratings, the conversation's otherwise).
 */
export async function tallyInMirror(mirror: WorkspaceMirror, metric: Metric, request: MirrorCount): Promise<WindowTally> {
  const { sql: picked, values } = pickedSql(request);
  const unit = UNITS[metric];
  const units = `WITH p AS (${picked}), x AS (SELECT e.id AS unit, e."interactionId", p."botId", p."agentName", p.source, p.channel, CAST(${unit.worth} AS DOUBLE) AS worth FROM p JOIN events e ON e."interactionId" = p.id WHERE ${unit.where})`;
  const window = emptyWindow();
  const [count] = await mirror.rows(`WITH p AS (${picked}) SELECT CAST(count(*) AS DOUBLE) AS n FROM p`, values);
  window.conversations = Number(count.n);
  const grouped = async (dimension: 'agent' | 'source' | 'channel', key: string, name: string) => {
    const rows = await mirror.rows(`${units} SELECT ${key} AS id, ${name} AS name, CAST(count(*) AS DOUBLE) AS units, CAST(sum(worth) AS DOUBLE) AS worth FROM x GROUP BY 1`, values);
    for (const row of rows) addTo(window, dimension, String(row.id), String(row.name ?? row.id), Number(row.units), Number(row.worth));
    return rows;
  };
  const agents = await grouped('agent', '"botId"', 'any_value("agentName")');
  for (const row of agents) {
    window.total.units += Number(row.units);
    window.total.worth += Number(row.worth);
  }
  await grouped('source', "coalesce(source, 'unknown')", "coalesce(any_value(source), 'unknown')");
  await grouped('channel', "coalesce(channel, 'unknown')", "coalesce(any_value(channel), 'unknown')");
  const articles =
    metric === 'negativeRate'
      ? 'SELECT "eventId" AS owner, "articleId", title, count(*) OVER (PARTITION BY "eventId") AS k FROM used_articles WHERE "eventId" IS NOT NULL'
      : 'SELECT "interactionId" AS owner, "articleId", title, count(*) OVER (PARTITION BY "interactionId") AS k FROM used_articles WHERE "eventId" IS NULL';
  const owner = metric === 'negativeRate' ? 'x.unit' : 'x."interactionId"';
  const rows = await mirror.rows(
    `${units}, a AS (${articles}) SELECT coalesce(a."articleId", $${values.length + 1}) AS id, coalesce(min(a.title), min(a."articleId"), $${values.length + 1}) AS name,
       CAST(sum(1.0 / coalesce(a.k, 1)) AS DOUBLE) AS units, CAST(sum(x.worth / coalesce(a.k, 1)) AS DOUBLE) AS worth
     FROM x LEFT JOIN a ON a.owner = ${owner} GROUP BY 1`,
    [...values, NO_ARTICLE],
  );
  for (const row of rows) addTo(window, 'article', String(row.id), String(row.name), Number(row.units), Number(row.worth));
  return window;
}
