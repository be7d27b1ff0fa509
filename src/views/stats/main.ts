import type { App } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import '../common/base.css';
import './stats.css';
import { drawChart } from '../common/chart.js';
import { el, figureTable, isRecord, replaceChildren, type Column } from '../common/dom.js';
import { resultText, showError, startView } from '../common/view.js';
import { formatMean, formatPercent, type Counts, type Dimension, type Group, type StatsResult } from '../../../tools/results.js';

const DAY_MS = 86_400_000;
/** Filters of conversation_stats that export_conversations takes the same way. */
const SHARED_FILTERS = ['botId', 'source', 'channel', 'question', 'answer', 'csat'];
const MAX_ANSWERS = 50;

const root = document.getElementById('view')!;
const summary = el('section');
const figures = el('div');
const answers = el('section', { attrs: { id: 'answers', 'aria-live': 'polite' } });
root.append(summary, figures, answers);

let app: App | undefined;
let input: Record<string, unknown> = {};
let stats: StatsResult | undefined;


const GROUP_COLUMNS: Column<Group>[] = [
  { label: 'conversations', cell: (group) => group.conversations, numeric: true },
  { label: 'answers', cell: (group) => group.answers, numeric: true },
  { label: 'thumbs up', cell: (group) => group.thumbsUp, numeric: true },
  { label: 'thumbs down', cell: (group) => group.thumbsDown, numeric: true },
  { label: 'negative rate', cell: (group) => formatPercent(group.negativeRate), numeric: true },
  { label: 'unresolved negative', cell: (group) => group.unresolvedNegative, numeric: true },
  { label: 'CSAT mean', cell: (group) => formatMean(group.csat.mean), numeric: true },
  { label: 'escalations', cell: (group) => group.escalations, numeric: true },
];

function render(): void {
  if (!stats) return;
  replaceChildren(
    summary,
    el('h1', {}, 'Conversation statistics'),
    el('p', { className: 'muted' }, `Conversations created ${stats.since} to ${stats.until}: ${stats.count} counted.`),
    !stats.complete && el('p', { className: 'warning', attrs: { role: 'alert' } }, 'Incomplete: the count stopped at maxConversations.'),
    stats.note && el('p', { className: 'muted' }, stats.note),
  );
  replaceChildren(figures);
  for (const [dimension, groups] of Object.entries(stats.groups) as Array<[Dimension, Group[]]>) figures.append(groupFigure(dimension, groups));
  figures.append(csatFigure(stats.total), articlesTable(stats.total));
}

function groupFigure(dimension: Dimension, groups: Group[]): HTMLElement {
  const chart = el('div', { className: 'chart' });
  const pickable = (group: Group) => group.id !== 'unknown';
  const nameCell: Column<Group> = {
    label: dimension,
    cell: (group) =>
      pickable(group)
        ? el('button', { className: 'link', attrs: { type: 'button', title: 'List its thumbs-down answers' }, onClick: () => void pick(dimension, group) }, group.name)
        : group.name,
  };
  const table = figureTable(`By ${dimension}`, [nameCell, ...GROUP_COLUMNS], groups, (group) => ({ 'data-dimension': dimension, 'data-group': group.id }));
  const section = el('section', { className: 'group-figure' }, el('h2', {}, `Conversations and negative rate by ${dimension}`), el('div', { className: 'figure' }, chart, table));
  // uPlot measures its container, so it draws once the section is in the page.
  requestAnimationFrame(() => {
    const chronological = dimension === 'day' || dimension === 'week';
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
      onPick: (index) => pickable(groups[index]) && void pick(dimension, groups[index]),
    });
  });
  return section;
}

function csatFigure(total: Counts): HTMLElement {
  const ratings = Object.entries(total.csat.distribution).map(([rating, count]) => ({ rating: Number(rating), count }));
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
      names: ratings.map((row) => `rating ${row.rating}`),
      series: [{ label: 'ratings', values: ratings.map((row) => row.count), scale: 'count' }],
    }),
  );
  return el('section', { className: 'csat' }, el('h2', {}, 'CSAT distribution'), ratings.length ? el('div', { className: 'figure' }, chart, table) : el('p', { className: 'muted' }, 'No CSAT ratings in this window.'));
}

function articlesTable(total: Counts): HTMLElement {
  return el(
    'section',
    { className: 'articles' },
    el('h2', {}, 'Articles most used in thumbs-down answers'),
    total.negativeArticles.length
      ? figureTable(
          'Articles behind thumbs-down answers',
          [
            { label: 'article', cell: (article) => article.title ?? article.id },
            { label: 'id', cell: (article) => article.id },
            { label: 'thumbs-down answers', cell: (article) => article.count, numeric: true },
          ],
          total.negativeArticles,
        )
      : el('p', { className: 'muted' }, 'No article was used in a thumbs-down answer.'),
  );
}

/** The same window and filters as the stats, narrowed to one group, thumbs-down conversations only. */
function exportArguments(dimension: Dimension, group: Group, window: StatsResult): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(SHARED_FILTERS.filter((key) => input[key] !== undefined).map((key) => [key, input[key]]));
  let since = Date.parse(window.since);
  let until = Date.parse(window.until);
  if (dimension === 'agent') args.botId = group.id;
  if (dimension === 'source' || dimension === 'channel') args[dimension] = [group.id];
  if (dimension === 'day' || dimension === 'week') {
    const start = Date.parse(group.id);
    since = Math.max(since, start);
    until = Math.min(until, start + (dimension === 'day' ? DAY_MS : 7 * DAY_MS) - 1);
  }
  return { ...args, since: new Date(since).toISOString(), until: new Date(until).toISOString(), feedback: 'negative', maxConversations: MAX_ANSWERS, view: 'full' };
}

async function pick(dimension: Dimension, group: Group): Promise<void> {
  if (!app || !stats) return;
  replaceChildren(answers, el('h2', {}, `Thumbs-down answers: ${group.name}`), el('p', { className: 'muted' }, 'Loading…'));
  try {
    const result = await app.callServerTool({ name: 'export_conversations', arguments: exportArguments(dimension, group, stats) });
    if (result.isError) throw new Error(resultText(result));
    showAnswers(group, result);
  } catch (error) {
    showError(answers, `Could not list the thumbs-down answers of ${group.name}`, error);
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
function answersIn(result: CallToolResult): Answer[] {
  const data = result.structuredContent;
  const conversations = isRecord(data) && Array.isArray(data.interactions) ? data.interactions.filter(isRecord) : [];
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

function showAnswers(group: Group, result: CallToolResult): void {
  const found = answersIn(result);
  const data = result.structuredContent;
  const more = isRecord(data) && data.complete === false ? `Showing the first ${MAX_ANSWERS} conversations.` : '';
  replaceChildren(
    answers,
    el('h2', {}, `Thumbs-down answers: ${group.name}`),
    el('p', { className: 'muted' }, `${found.length} thumbs-down answer(s). ${more}`),
    el(
      'ol',
      { className: 'answers' },
      ...found.map((answer) =>
        el(
          'li',
          { attrs: { 'data-conversation': answer.conversationId } },
          el('p', { className: 'muted' }, `${answer.agent} · ${answer.at ? new Date(answer.at).toISOString().slice(0, 16).replace('T', ' ') : ''} · conversation ${answer.conversationId}${answer.resolved ? ' · resolved' : ''}`),
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
