import { definitionLines } from './definitions.js';
import type { Quote } from './diff.js';
import { crossedKey, NONE } from './stats.js';
import { CHRONOLOGICAL, formatChange, formatMean, formatPercent, type Change, type Counts, type Dimension, type Group, type KeyedGroup, type StatsResult } from '../../src/views/results.js';

/**
 * conversation_stats as text: a table per dimension (or the crossed one), each figure with its
 * change when two windows are compared; the counting itself is stats.ts.
 */

/** The figures a table shows, in its column order: how each is read from counts or from a change, and how it is written. */
const FIGURES: Array<{ label: string; of: (figures: Change) => number | null; kind: 'count' | 'rate' | 'mean' }> = [
  { label: 'conversations', of: (figures) => figures.conversations, kind: 'count' },
  { label: 'answers', of: (figures) => figures.answers, kind: 'count' },
  { label: 'thumbs up', of: (figures) => figures.thumbsUp, kind: 'count' },
  { label: 'thumbs down', of: (figures) => figures.thumbsDown, kind: 'count' },
  { label: 'negative rate', of: (figures) => figures.negativeRate, kind: 'rate' },
  { label: 'unresolved negative', of: (figures) => figures.unresolvedNegative, kind: 'count' },
  { label: 'CSAT ratings', of: (figures) => figures.csat.count, kind: 'count' },
  { label: 'CSAT mean', of: (figures) => figures.csat.mean, kind: 'mean' },
  { label: 'escalations', of: (figures) => figures.escalations, kind: 'count' },
];

function formatFigure(value: number | null, kind: 'count' | 'rate' | 'mean'): string {
  return kind === 'rate' ? formatPercent(value) : kind === 'mean' ? formatMean(value) : String(value);
}

function row(labels: string[], counts: Counts, change?: Change): string {
  const shown = FIGURES.map(({ of, kind }) => {
    const value = formatFigure(of(counts), kind);
    const changed = change && formatChange(of(change), kind);
    return changed === undefined || changed === '-' ? value : `${value} (${changed})`;
  });
  return `| ${[...labels, ...shown].join(' | ')} |`;
}

function header(labels: string[]): string[] {
  const columns = [...labels, ...FIGURES.map((figure) => figure.label)];
  return [`| ${columns.join(' | ')} |`, `|${'---|'.repeat(columns.length)}`];
}

/** The articles behind a group's thumbs-down answers, with the group's name, in one envelope. */
function articleLine(counts: Counts, quote: Quote, name?: string): string {
  const listed = quote(`${name === undefined ? '' : `${name}: `}${counts.negativeArticles.map((article) => `${article.title ?? article.id} (${article.id}) x${article.count}`).join('; ')}`);
  return counts.negativeArticlesLeftOut ? `${listed}; and ${counts.negativeArticlesLeftOut} more article(s) not listed` : listed;
}

/** One dimension's table: a row per group, the groups only the previous window had, the total. */
function groupTable(result: StatsResult, dimension: Dimension, groups: Group[], quote: Quote): string[] {
  const changes = new Map(result.change?.groups[dimension]?.map((entry) => [entry.id, entry]));
  const changed = result.change?.groups[dimension] !== undefined;
  const name = (value: string) => (dimension === 'agent' ? quote(value) : value);
  const lines = ['', `By ${dimension}:`, ...header([dimension])];
  for (const group of groups) lines.push(row([name(group.name)], group, changed ? changes.get(group.id) : undefined));
  // Groups only the previous window had, so that a comparison drops nothing silently.
  for (const gone of changed ? [...changes.values()].filter((entry) => !groups.some((group) => group.id === entry.id)) : []) lines.push(row([name(gone.name)], NONE, gone));
  lines.push(row(['total'], result.total, result.change?.total));
  return lines;
}

/** Two dimensions crossed: a row per pair that holds conversations, the pairs only the previous window had, the total. */
function crossedTable(result: StatsResult, crossed: KeyedGroup[], quote: Quote): string[] {
  const dimensions = Object.keys(result.groups) as Dimension[];
  const label = (group: KeyedGroup, dimension: Dimension) => (dimension === 'agent' ? quote(group.agent) : String(group[dimension]));
  const changes = result.change?.crossed && new Map(result.change.crossed.map((entry) => [crossedKey(entry), entry]));
  const lines = ['', `By ${dimensions.join(' and ')}:`, ...header(dimensions)];
  for (const group of crossed)
    lines.push(
      row(
        dimensions.map((dimension) => label(group, dimension)),
        group,
        changes?.get(crossedKey(group)),
      ),
    );
  for (const gone of changes ? [...changes.values()].filter((entry) => !crossed.some((group) => crossedKey(group) === crossedKey(entry))) : []) {
    lines.push(
      row(
        dimensions.map((dimension) => label({ ...gone, ...NONE }, dimension)),
        NONE,
        gone,
      ),
    );
  }
  lines.push(row(['total', ...dimensions.slice(1).map(() => '')], result.total, result.change?.total));
  return lines;
}

/**
 * Text rendering of conversation_stats: the scan in one line, one small table per dimension, or
 * for two crossed the crossed table alone (with the one-way tables only where a date dimension
 * leaves the crossed cells without a change), each figure followed by its change when compared,
 * the articles behind thumbs-down answers, and the definitions not yet stated this session. A stop
 * at maxConversations is the result's first line (`stoppedEarly`).
 */
export function renderStats(data: unknown, quote: Quote): string {
  const result = data as StatsResult;
  const lines = [`Conversations created ${result.since} to ${result.until}: ${result.count} counted${result.complete ? '' : ' (not all: see the first line)'}.`];
  if (result.previous) {
    const before = result.previous.total.conversations;
    lines.push(
      `Compared with the previous window, ${result.previous.since} to ${result.previous.until}: ${before} conversation${before === 1 ? '' : 's'}. Figures show (change) = this window minus that one.`,
    );
  }
  if (result.note) lines.push(result.note);
  const crossedAlone = result.crossed !== undefined && !(result.change && !result.change.crossed);
  for (const [dimension, groups] of Object.entries(result.groups) as Array<[Dimension, Group[]]>) {
    if (!crossedAlone && !(result.crossed && CHRONOLOGICAL.includes(dimension))) lines.push(...groupTable(result, dimension, groups, quote));
  }
  if (result.crossed) lines.push(...crossedTable(result, result.crossed, quote));
  const withArticles = (result.groups.agent ?? []).filter((group) => group.negativeArticles.length);
  if (withArticles.length) lines.push('', 'Articles used in thumbs-down answers:', ...withArticles.map((group) => `- ${articleLine(group, quote, group.name)}`));
  else if (!result.groups.agent && result.total.negativeArticles.length) lines.push('', `Articles used in thumbs-down answers: ${articleLine(result.total, quote)}`);
  lines.push(...definitionLines(result));
  return lines.join('\n');
}
