import { z } from 'zod';
import { defineTool, type ToolContext } from '../../../src/engine/define.js';
import { clockNow, timeInput } from '../../../src/engine/inputs.js';
import { DEFINITIONS } from '../../../src/views/results.js';
import { channelEnum, conversationSource } from '../inputs.js';
import { renderPassages, type Quote } from '../diff.js';
import { unstatedDefinitions } from '../definitions.js';
import type { KnowledgeChange } from './knowledge-changes.js';
import { DIMENSIONS, METRIC_WORDS, METRICS, movers, round, SMALL, metricValue, type Metric, type Mover, type MoverDimension } from './movers.js';
import { tallyWindows } from './tallies.js';

/** Movers shown per dimension; the rest are counted. */
const TOP = 5;

/** What no route of the API shows, so no answer can include it. */
const CANNOT_SHOW = [
  'sources (no route lists them) and rules (no route lists them or their edits)',
  'prompt versions and agent settings',
  'edits made before the mirror first read an article (no earlier text to compare)',
];

interface WindowFigures {
  since: string;
  until: string;
  value: number | null;
  units: number;
  conversations: number;
}

interface Explanation {
  metric: Metric;
  now: WindowFigures;
  before: WindowFigures;
  change: number | null;
  movers: Record<MoverDimension, Mover[]>;
  /** Groups of each dimension not shown. */
  moversLeftOut: Partial<Record<MoverDimension, number>>;
  knowledge: KnowledgeChange[];
  knowledgeLeftOut: number;
  cannotShow: string[];
  small: boolean;
  requests: number;
  asOf?: string;
  /** How the metric and the parts are counted, the first time this session is told. */
  definitions?: Record<string, string>;
}

/** How a part is counted, said once per session as the figures' definitions are. */
const PART_DEFINITION =
  "a group's worth over all of its window's units, now less before (for a count, its count now less before); a dimension's parts add up to the whole change; an answer that used several articles is split evenly among them";

const iso = (ms: number) => new Date(ms).toISOString();

async function explainChange(input: z.output<typeof explainInput>, context: ToolContext): Promise<Explanation> {
  const metric = input.metric ?? 'negativeRate';
  const until = input.until ?? clockNow();
  const now = { since: input.since, until };
  const before = { since: 2 * input.since - until - 1, until: input.since - 1 };
  const filters = { botId: input.botId, source: input.source, channel: input.channel };
  const tallies = await tallyWindows(context, { metric, windows: [before, now], filters, knowledge: { since: before.since, until } }, 'Explain');
  const [earlier, later] = tallies.windows;
  const figures = (window: { since: number; until: number }, tally: typeof later): WindowFigures => ({
    since: iso(window.since),
    until: iso(window.until),
    value: metricValue(metric, tally.total),
    units: tally.total.units,
    conversations: tally.conversations,
  });
  const all = movers(metric, later, earlier);
  const shown = Object.fromEntries(DIMENSIONS.map((dimension) => [dimension, all[dimension].slice(0, TOP)])) as Record<MoverDimension, Mover[]>;
  const left = Object.fromEntries(DIMENSIONS.filter((dimension) => all[dimension].length > TOP).map((dimension) => [dimension, all[dimension].length - TOP]));
  const nowValue = metricValue(metric, later.total);
  const beforeValue = metricValue(metric, earlier.total);
  return {
    metric,
    now: figures(now, later),
    before: figures(before, earlier),
    change: nowValue === null || beforeValue === null ? null : round(nowValue - beforeValue),
    movers: shown,
    moversLeftOut: left,
    knowledge: tallies.knowledge?.changes ?? [],
    knowledgeLeftOut: tallies.knowledge?.more ?? 0,
    cannotShow: CANNOT_SHOW,
    small: METRIC_WORDS[metric].rate && (later.total.units < SMALL || earlier.total.units < SMALL),
    requests: tallies.requests,
    asOf: tallies.asOf,
    // The metric's definition and the parts' (design 15).
    ...unstatedDefinitions({ [metric]: DEFINITIONS[metric], part: PART_DEFINITION }, context),
  };
}

/** A metric's value as a person reads it: a percentage for the rate, two decimals for the mean, a count. */
export function shownValue(metric: Metric, value: number | null): string {
  if (value === null) return '-';
  if (metric === 'negativeRate') return `${(value * 100).toFixed(1)}%`;
  return metric === 'csat' ? value.toFixed(2) : String(value);
}

function shownPart(metric: Metric, part: number): string {
  const sign = part > 0 ? '+' : part < 0 ? '-' : '±';
  return metric === 'negativeRate' ? `${sign}${Math.abs(part * 100).toFixed(1)} pts` : `${sign}${Math.abs(part).toFixed(metric === 'csat' ? 2 : 0)}`;
}

function renderExplanation(data: unknown, quote: Quote): string {
  const result = data as Explanation;
  const { metric } = result;
  const words = METRIC_WORDS[metric];
  const lines = [
    `${words.name}: ${shownValue(metric, result.before.value)} (${result.before.since} to ${result.before.until}, ${result.before.units} ${words.unit}) -> ${shownValue(metric, result.now.value)} (${result.now.since} to ${result.now.until}, ${result.now.units} ${words.unit}); change ${result.change === null ? '-' : shownPart(metric, result.change)}.`,
  ];
  if (result.small) lines.push(`Small sample: fewer than ${SMALL} ${words.unit} in a window; read the change as a hint, not a finding.`);
  lines.push(`Each part below is a group's share of the change; a dimension's parts add up to the whole change.${result.asOf ? ` From the workspace mirror as of ${result.asOf}.` : ''}`);
  for (const dimension of DIMENSIONS) {
    const list = result.movers[dimension];
    if (list.length === 0) continue;
    lines.push('', `By ${dimension}: part of change | now | before`);
    for (const mover of list) {
      const name = dimension === 'agent' || dimension === 'article' ? quote(mover.name) : mover.name;
      // A share beyond the whole means groups moved against each other: the part in points says it better.
      const share = mover.share === null || Math.abs(mover.share) > 1 ? '' : ` (${Math.round(mover.share * 100)}%)`;
      lines.push(
        `- ${name}${dimension === 'article' && mover.id !== mover.name ? ` ${mover.id}` : ''}: ${shownPart(metric, mover.part)}${share} | ${shownValue(metric, mover.now.value)} of ${mover.now.units} | ${shownValue(metric, mover.before.value)} of ${mover.before.units}${mover.small ? ' | small sample' : ''}`,
      );
    }
    const left = result.moversLeftOut[dimension];
    if (left) lines.push(`- and ${left} more with smaller parts`);
  }
  lines.push('', result.knowledge.length ? 'Knowledge changed from the start of the earlier window:' : 'No knowledge change from the start of the earlier window in what the API lists.');
  for (const change of result.knowledge) {
    const who = change.updatedBy ? ` by ${change.updatedBy}` : '';
    const version = change.version === undefined || change.version === null ? '' : ` v${change.version}`;
    lines.push(`- ${change.kind} ${quote(change.title)} (${change.id})${version}, ${change.updatedAt}${who}${change.against ? `; compared with ${change.against}` : ''}`);
    if (change.passages?.length) lines.push(...renderPassages(change.passages, quote, '    '));
  }
  if (result.knowledgeLeftOut) lines.push(`- and ${result.knowledgeLeftOut} older change(s)`);
  lines.push('', `Not shown by the API: ${result.cannotShow.join('; ')}.`);
  if (result.definitions) lines.push('', 'Definitions:', ...Object.entries(result.definitions).map(([figure, definition]) => `- ${figure}: ${definition}`));
  return lines.join('\n');
}

const explainInput = z
  .object({
    since: timeInput('Start of the window to explain.'),
    until: timeInput('Default now.').optional(),
    compareTo: z.enum(['previous']).optional().describe('The window of equal length just before (the default)'),
    metric: z.enum(METRICS).optional().describe('Default negativeRate'),
    botId: z.string().min(1).optional(),
    source: z.array(conversationSource).min(1).optional(),
    channel: z.array(channelEnum).min(1).optional(),
  })
  .superRefine((input, context) => {
    if (input.since >= (input.until ?? clockNow())) context.addIssue({ code: z.ZodIssueCode.custom, path: ['since'], message: 'must be earlier than until' });
  });

export const explainTool = defineTool({
  name: 'explain_change',
  title: 'Explain why a metric moved',
  words: 'why diagnose root cause driver reason behind jump spike drop rise fall increase decrease worse better attribution breakdown contributing',
  scope: 'read',
  core: true,
  description:
    'Why the thumbs-down rate, CSAT or escalations moved against the window before: each agent, source, channel and article used with its share of the change, and what changed in the knowledge meanwhile. For raw counts: conversation_stats.',
  input: explainInput,
  handler: explainChange,
  text: renderExplanation,
  taskSupport: 'optional',
});
