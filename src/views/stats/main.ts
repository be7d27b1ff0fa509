import type { App } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import '../common/base.css';
import './stats.css';
import { drawChart } from '../common/chart.js';
import { isRecord, recordOf } from '../../json.js';
import { el, figureTable, replaceChildren, type Column } from '../common/dom.js';
import { resultText, showError, startView } from '../common/view.js';
import {
  CHANGE_DEFINITION,
  CHRONOLOGICAL,
  periodOf,
  DEFINITIONS,
  formatChange,
  formatMean,
  formatPercent,
  type Change,
  type Counts,
  type Dimension,
  type Group,
  type KeyedGroup,
  type StatsResult,
} from '../results.js';

/** Filters of conversation_stats that export_conversations takes the same way. */
const SHARED_FILTERS = ['botId', 'source', 'channel', 'question', 'answer', 'csat'];
const MAX_ANSWERS = 50;

/** Column headings of the figures, and how the definitions name them. */
const LABELS: Record<string, string> = {
  conversations: 'conversations',
  answers: 'answers',
  thumbsUp: 'thumbs up',
  thumbsDown: 'thumbs down',
  negativeRate: 'negative rate',
  unresolvedNegative: 'unresolved negative',
  csat: 'CSAT',
  escalations: 'escalations',
  negativeArticles: 'articles in thumbs-down answers',
  change: 'change',
};

const root = document.getElementById('view')!;
const summary = el('section');
const figures = el('div');
const answers = el('section', { attrs: { id: 'answers', 'aria-live': 'polite' } });
const definitions = el('section');
root.append(summary, figures, definitions, answers);

let app: App | undefined;
let input: Record<string, unknown> = {};
let stats: StatsResult | undefined;

/** A time as people read it: `2026-11-24 14:46 UTC`. */
const when = (iso: string) => `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** A figure, followed by its change from the previous window when there is one. */
function figure(value: string, change: number | null | undefined, kind: 'count' | 'rate' | 'mean'): string {
  return change === undefined || change === null ? value : `${value} (${formatChange(change, kind)})`;
}

function figureColumns<Row extends Counts>(changeOf: (row: Row) => Change | undefined): Column<Row>[] {
  return [
    { label: LABELS.conversations, cell: (row) => figure(String(row.conversations), changeOf(row)?.conversations, 'count'), numeric: true },
    { label: LABELS.answers, cell: (row) => figure(String(row.answers), changeOf(row)?.answers, 'count'), numeric: true },
    { label: LABELS.thumbsUp, cell: (row) => figure(String(row.thumbsUp), changeOf(row)?.thumbsUp, 'count'), numeric: true },
    { label: LABELS.thumbsDown, cell: (row) => figure(String(row.thumbsDown), changeOf(row)?.thumbsDown, 'count'), numeric: true },
    { label: LABELS.negativeRate, cell: (row) => figure(formatPercent(row.negativeRate), changeOf(row)?.negativeRate, 'rate'), numeric: true },
    { label: LABELS.unresolvedNegative, cell: (row) => figure(String(row.unresolvedNegative), changeOf(row)?.unresolvedNegative, 'count'), numeric: true },
    { label: 'CSAT mean', cell: (row) => figure(formatMean(row.csat.mean), changeOf(row)?.csat.mean, 'mean'), numeric: true },
    { label: LABELS.escalations, cell: (row) => figure(String(row.escalations), changeOf(row)?.escalations, 'count'), numeric: true },
  ];
}

function render(): void {
  if (!stats) return;
  replaceChildren(summary, el('h1', {}, 'Conversation statistics'), ...summaryLines(stats));
  replaceChildren(figures);
  const dimensions = Object.keys(stats.groups) as Dimension[];
  for (const dimension of dimensions) figures.append(groupFigure(dimension, stats.groups[dimension] ?? []));
  if (stats.crossed && dimensions.length === 2) figures.append(crossedTable(dimensions as [Dimension, Dimension], stats.crossed));
  figures.append(csatFigure(stats.total), articlesTable(stats.total));
  replaceChildren(definitions, definitionList(stats));
}

function summaryLines(result: StatsResult): Array<HTMLElement | false> {
  const previous = result.previous;
  const counted = `${plural(result.total.conversations, 'conversation')} created from ${when(result.since)} to ${when(result.until)}.`;
  const read = `Read agent by agent (${plural(result.agents.length, 'agent')}) in ${plural(result.windows, 'period')} of at most 90 days, with ${plural(result.requests, 'request')} to the API.`;
  return [
    el('p', {}, counted),
    previous !== undefined &&
      el('p', {}, `Compared with the period just before, from ${when(previous.since)} to ${when(previous.until)}: ${plural(previous.total.conversations, 'conversation')}. Changes show in brackets.`),
    !result.complete && el('p', { className: 'warning', attrs: { role: 'alert' } }, `Incomplete: counting stopped after ${plural(result.count, 'conversation')}, the most this request allowed.`),
    result.count === 0 && el('p', {}, 'No conversation matched this period and these filters.'),
    el('p', { className: 'muted' }, read),
  ];
}

/** A group's name, as a button that lists its thumbs-down answers when the group can be narrowed to. */
function pickable(narrowing: Array<[Dimension, string]>, name: string): HTMLElement | string {
  if (narrowing.some(([, id]) => id === 'unknown')) return name;
  return el('button', { className: 'link', attrs: { type: 'button', title: 'List its thumbs-down answers' }, onClick: () => void pick(narrowing, name) }, name);
}

function groupFigure(dimension: Dimension, groups: Group[]): HTMLElement {
  const chart = el('div', { className: 'chart' });
  const changes = new Map(stats?.change?.groups[dimension]?.map((entry) => [entry.id, entry]));
  // Groups only the previous window had: shown with zero figures, so the comparison drops nothing.
  const gone = [...changes.values()].filter((entry) => !groups.some((group) => group.id === entry.id)).map((entry): Group => ({ ...NONE, id: entry.id, name: `${entry.name} (none this period)` }));
  const nameCell: Column<Group> = { label: dimension, cell: (group) => pickable([[dimension, group.id]], group.name) };
  const table = figureTable(`Figures by ${dimension}`, [nameCell, ...figureColumns<Group>((group) => changes.get(group.id))], [...groups, ...gone], (group) => ({
    'data-dimension': dimension,
    'data-group': group.id,
  }));
  const section = el('section', { className: 'group-figure' }, el('h2', {}, `By ${dimension}`), el('div', { className: 'figure' }, chart, table));
  // uPlot measures its container, so it draws once the section is in the page.
  requestAnimationFrame(() => {
    const chronological = CHRONOLOGICAL.includes(dimension);
    drawChart(chart, {
      title: `Chart: conversations and negative rate by ${dimension}; the table beside it has the figures.`,
      countLabel: 'conversations',
      kind: chronological ? 'time' : 'category',
      x: chronological ? groups.map((group) => Date.parse(group.id)) : groups.map((_group, index) => index),
      names: groups.map((group) => group.name),
      series: [
        { label: 'conversations', values: groups.map((group) => group.conversations), scale: 'count' },
        { label: 'negative rate', values: groups.map((group) => group.negativeRate), scale: 'rate' },
      ],
      onPick: (index) => void pick([[dimension, groups[index].id]], groups[index].name),
    });
  });
  return section;
}

const NONE: Counts = {
  conversations: 0,
  answers: 0,
  thumbsUp: 0,
  thumbsDown: 0,
  negativeRate: null,
  unresolvedNegative: 0,
  escalations: 0,
  csat: { count: 0, mean: null, distribution: {} },
  negativeArticles: [],
};

/** What names a group of one dimension inside a crossed group. */
const crossedId = (group: KeyedGroup, dimension: Dimension) => (dimension === 'agent' ? group.botId : group[dimension]) ?? 'unknown';

/**
 * Two dimensions crossed, as one table: a row per group of one (the dates, when one is a date),
 * a column per group of the other; each cell has its conversations and negative rate.
 */
function crossedTable(dimensions: [Dimension, Dimension], crossed: KeyedGroup[]): HTMLElement {
  const [rows, columns] = CHRONOLOGICAL.includes(dimensions[1]) ? [dimensions[1], dimensions[0]] : dimensions;
  const cells = new Map(crossed.map((group) => [`${crossedId(group, rows)}\n${crossedId(group, columns)}`, group]));
  const changes = new Map(stats?.change?.crossed?.map((entry) => [`${crossedId(entry as KeyedGroup, rows)}\n${crossedId(entry as KeyedGroup, columns)}`, entry]));
  const columnGroups = stats?.groups[columns] ?? [];
  const table = figureTable(
    `Conversations and negative rate by ${rows} and ${columns}`,
    [
      { label: rows, cell: (row: Group) => row.name },
      ...columnGroups.map(
        (column): Column<Group> => ({
          label: column.name,
          numeric: true,
          cell: (row) => {
            const key = `${row.id}\n${column.id}`;
            const group = cells.get(key);
            if (!group) return '-';
            const text = `${figure(String(group.conversations), changes.get(key)?.conversations, 'count')} · ${formatPercent(group.negativeRate)}`;
            return pickable(
              [
                [rows, row.id],
                [columns, column.id],
              ],
              text,
            );
          },
        }),
      ),
    ],
    stats?.groups[rows] ?? [],
    (row) => ({ 'data-crossed': row.id }),
  );
  return el(
    'section',
    { className: 'crossed' },
    el('h2', {}, `By ${dimensions[0]} and ${dimensions[1]}`),
    el('p', { className: 'muted' }, 'Each cell: conversations · negative rate. Pick a cell to list its thumbs-down answers.'),
    table,
  );
}

/** The CSAT filter's range in the spec: the chart shows every point of it, so a missing rating shows as a gap, not as no rating at all. */
const CSAT_SCALE = [0, 1, 2, 3, 4, 5];

/**
 * The CSAT distribution on the whole scale, any other rating the API stored besides. A rating of 0
 * is a stored 0 (the spec returns it as it is), which a person may take for "no rating": said below the chart.
 */
function csatFigure(total: Counts): HTMLElement {
  const given = Object.entries(total.csat.distribution).map(([rating, count]) => ({ rating: Number(rating), count }));
  const ratings = [...CSAT_SCALE.map((rating) => ({ rating, count: total.csat.distribution[String(rating)] ?? 0 })), ...given.filter((row) => !CSAT_SCALE.includes(row.rating))].sort(
    (a, b) => a.rating - b.rating,
  );
  const zeros = total.csat.distribution['0'] ?? 0;
  const chart = el('div', { className: 'chart' });
  const table = figureTable(
    `CSAT ratings (${total.csat.count}, mean ${formatMean(total.csat.mean)})`,
    [
      { label: 'rating', cell: (row) => row.rating, numeric: true },
      { label: 'ratings', cell: (row) => row.count, numeric: true },
    ],
    ratings,
  );
  requestAnimationFrame(() =>
    drawChart(chart, {
      title: 'Chart: CSAT distribution; the table beside it has the figures.',
      countLabel: 'ratings',
      kind: 'category',
      x: ratings.map((_row, index) => index),
      names: ratings.map((row) => String(row.rating)),
      series: [{ label: 'ratings', values: ratings.map((row) => row.count), scale: 'count' }],
    }),
  );
  return el(
    'section',
    { className: 'csat' },
    el('h2', {}, 'CSAT distribution'),
    total.csat.count ? el('div', { className: 'figure' }, chart, table) : el('p', { className: 'muted' }, 'No CSAT ratings in this period.'),
    zeros > 0 && el('p', { className: 'muted' }, `${plural(zeros, 'rating')} of 0: a CSAT the API stores and returns as 0, counted in the mean like any other (the scale runs from 0 to 5).`),
  );
}

function articlesTable(total: Counts): HTMLElement {
  const leftOut = total.negativeArticlesLeftOut ?? 0;
  return el(
    'section',
    { className: 'articles' },
    el('h2', {}, 'Articles most used in thumbs-down answers'),
    total.negativeArticles.length
      ? el(
          'div',
          {},
          el(
            'p',
            { className: 'muted' },
            `The ${plural(total.negativeArticles.length, 'article')} most used in the ${plural(total.thumbsDown, 'thumbs-down answer')}${leftOut ? `; ${plural(leftOut, 'more article')} not listed` : ''}.`,
          ),
          figureTable(
            'Articles and the thumbs-down answers that used them',
            [
              { label: 'article', cell: (article) => article.title ?? article.id },
              { label: 'id', cell: (article) => article.id },
              { label: 'thumbs-down answers', cell: (article) => article.count, numeric: true },
            ],
            total.negativeArticles,
          ),
        )
      : el('p', { className: 'muted' }, 'No article was used in a thumbs-down answer.'),
  );
}

/** What each figure counts, as the tool states it: always here, though the text states it once per session. */
function definitionList(result: StatsResult): HTMLElement {
  const entries = Object.entries(result.change ? { ...DEFINITIONS, change: CHANGE_DEFINITION } : DEFINITIONS);
  return el(
    'details',
    {},
    el('summary', {}, 'How each figure is counted'),
    el('dl', { className: 'definitions' }, ...entries.flatMap(([name, text]) => [el('dt', {}, LABELS[name] ?? name), el('dd', {}, text)])),
  );
}

/** The same window and filters as the stats, narrowed to one group (or one crossed pair), thumbs-down conversations only. */
function exportArguments(narrowing: Array<[Dimension, string]>, window: StatsResult): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(SHARED_FILTERS.filter((key) => input[key] !== undefined).map((key) => [key, input[key]]));
  let since = Date.parse(window.since);
  let until = Date.parse(window.until);
  for (const [dimension, id] of narrowing) {
    if (dimension === 'agent') args.botId = id;
    if (dimension === 'source' || dimension === 'channel') args[dimension] = [id];
    const period = periodOf(dimension, id);
    if (period) {
      since = Math.max(since, period.since);
      until = Math.min(until, period.until);
    }
  }
  // The full view: message texts whole, without the compact view's shortening.
  return { ...args, since: new Date(since).toISOString(), until: new Date(until).toISOString(), feedback: 'negative', maxConversations: MAX_ANSWERS, view: 'full' };
}

async function pick(narrowing: Array<[Dimension, string]>, name: string): Promise<void> {
  if (!app || !stats) return;
  replaceChildren(answers, el('h2', {}, `Thumbs-down answers: ${name}`), el('p', { className: 'muted' }, 'Loading…'));
  try {
    const result = await app.callServerTool({ name: 'export_conversations', arguments: exportArguments(narrowing, stats) });
    if (result.isError) throw new Error(resultText(result));
    showAnswers(name, result);
  } catch (error) {
    showError(answers, `Could not list the thumbs-down answers of ${name}`, error);
  }
}

interface Answer {
  conversationId: string;
  agent: string;
  at: number | undefined;
  question: string;
  answer: string;
  feedback: string;
  resolved: boolean;
}

/** Each thumbs-down answer with the customer message it answered, newest conversation first. */
function answersIn(conversations: Record<string, unknown>[]): Answer[] {
  return conversations.flatMap((conversation) => {
    const events = Array.isArray(conversation.events) ? conversation.events.filter(isRecord) : [];
    let question = '';
    const found: Answer[] = [];
    for (const event of events) {
      if (event.role === 'user' && typeof event.message === 'string') question = event.message;
      if (event.role !== 'svcbot' || event.approved !== false) continue;
      found.push({
        conversationId: String(conversation.id),
        agent: String(conversation.agentName ?? conversation.botId ?? ''),
        at: typeof event.createdAt === 'number' ? event.createdAt : undefined,
        question,
        answer: typeof event.message === 'string' ? event.message : '',
        feedback: typeof event.feedback === 'string' ? event.feedback : '',
        resolved: event.resolved === true,
      });
    }
    return found;
  });
}

function showAnswers(name: string, result: CallToolResult): void {
  const data = recordOf(result.structuredContent);
  const conversations = Array.isArray(data.interactions) ? data.interactions.filter(isRecord) : [];
  const found = answersIn(conversations);
  const count = typeof data.count === 'number' ? data.count : conversations.length;
  const shown =
    conversations.length < count
      ? ` From the first ${plural(conversations.length, 'conversation')} of ${count}: the rest did not fit in one answer.`
      : data.complete === false
        ? ` From the first ${plural(MAX_ANSWERS, 'conversation')}.`
        : '';
  replaceChildren(
    answers,
    el('h2', {}, `Thumbs-down answers: ${name}`),
    el('p', { className: 'muted' }, `${plural(found.length, 'thumbs-down answer')}.${shown}`),
    el(
      'ol',
      { className: 'answers' },
      ...found.map((answer) =>
        el(
          'li',
          { attrs: { 'data-conversation': answer.conversationId } },
          el(
            'p',
            { className: 'muted' },
            [answer.agent, answer.at && when(new Date(answer.at).toISOString()), `conversation ${answer.conversationId}`, answer.resolved && 'resolved'].filter(Boolean).join(' · '),
          ),
          answer.question && el('p', { className: 'question' }, el('strong', {}, 'Customer: '), answer.question),
          el('p', { className: 'answer' }, el('strong', {}, 'Answer: '), answer.answer),
          answer.feedback && el('p', { className: 'feedback' }, el('strong', {}, 'Feedback: '), answer.feedback),
        ),
      ),
    ),
  );
}

function isStats(value: unknown): value is StatsResult {
  return isRecord(value) && isRecord(value.total) && isRecord(value.groups);
}

startView('stats', {
  input: (args) => {
    input = args;
  },
  result: (result) => {
    if (result.isError || !isStats(result.structuredContent)) {
      replaceChildren(summary, el('p', { className: 'muted' }, 'The statistics could not be computed; the answer beside this view says why.'));
      return;
    }
    stats = result.structuredContent;
    render();
  },
  restyle: render,
})
  .then((connected) => {
    app = connected;
  })
  .catch((error: unknown) => showError(summary, 'Could not connect to the host', error));
