import { z } from 'zod';
import { defineTool, type ToolContext } from '../../../src/engine/define.js';
import { ToolFailure } from '../../../src/engine/errors.js';
import { clockNow, DAY_MS, idInput, timeInput } from '../../../src/engine/inputs.js';
import type { Quote } from '../diff.js';
import { shownValue } from './explain-tool.js';
import { round, SMALL, metricValue } from './movers.js';
import { lastUpdateOf, tallyWindows } from './tallies.js';

const DEFAULT_DAYS = 14;
/** z for a two-sided 95 % interval. */
const Z95 = 1.959964;

interface Side {
  since: string;
  until: string;
  conversations: number;
  rated: number;
  thumbsDown: number;
  rate: number | null;
}

interface Measurement {
  moment: string;
  /** What the moment is: the article's last update, or the time given. */
  of: string;
  article?: { id: string; title: string; version: unknown };
  before: Side;
  after: Side;
  /** After less before, in rate (0.05 = 5 points), and its 95 % interval. */
  difference: number | null;
  interval: [number, number] | null;
  verdict: string;
  requests: number;
  asOf?: string;
}

/** Wilson's score interval for a proportion: well behaved at 0, 1 and small counts. */
function wilson(successes: number, trials: number): [number, number] {
  const p = successes / trials;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return [centre - half, centre + half];
}

/** Newcombe's interval for the difference of two proportions (from the two Wilson intervals). */
export function differenceInterval(after: { down: number; rated: number }, before: { down: number; rated: number }): [number, number] | null {
  if (after.rated === 0 || before.rated === 0) return null;
  const [p1, p0] = [after.down / after.rated, before.down / before.rated];
  const [l1, u1] = wilson(after.down, after.rated);
  const [l0, u0] = wilson(before.down, before.rated);
  const d = p1 - p0;
  return [round(d - Math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2)), round(d + Math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2))];
}

async function measureChange(input: z.output<typeof measureInput>, context: ToolContext): Promise<Measurement> {
  let moment = input.at;
  let article: Measurement['article'];
  if (input.articleId) {
    const update = await lastUpdateOf(context, input.articleId);
    if (!update) throw new ToolFailure(`No article ${input.articleId} in this workspace (list_articles lists article ids).`);
    moment = update.at;
    article = { id: input.articleId, title: update.title, version: update.version };
  }
  const at = moment!;
  const now = clockNow();
  if (at >= now) throw new ToolFailure(`The moment ${new Date(at).toISOString()} is not in the past: there is no after window yet.`);
  const after = { since: at, until: Math.min(at + (input.days ?? DEFAULT_DAYS) * DAY_MS - 1, now) };
  const before = { since: at - (after.until - after.since + 1), until: at - 1 };
  const tallies = await tallyWindows(context, { metric: 'negativeRate', windows: [before, after], filters: { botId: input.botId }, usedArticle: input.articleId }, 'Measure');
  const [earlier, later] = tallies.windows;
  const side = (window: { since: number; until: number }, tally: typeof later): Side => ({
    since: new Date(window.since).toISOString(),
    until: new Date(window.until).toISOString(),
    conversations: tally.conversations,
    rated: tally.total.units,
    thumbsDown: tally.total.worth,
    rate: metricValue('negativeRate', tally.total),
  });
  const [b, a] = [side(before, earlier), side(after, later)];
  const difference = a.rate === null || b.rate === null ? null : round(a.rate - b.rate);
  const interval = differenceInterval({ down: a.thumbsDown, rated: a.rated }, { down: b.thumbsDown, rated: b.rated });
  return {
    moment: new Date(at).toISOString(),
    of: article ? `the last update of article ${article.id}` : 'the time given',
    article,
    before: b,
    after: a,
    difference,
    interval,
    verdict: verdictOf(difference, interval, Math.min(a.rated, b.rated)),
    requests: tallies.requests,
    asOf: tallies.asOf,
  };
}

function verdictOf(difference: number | null, interval: [number, number] | null, fewest: number): string {
  if (difference === null || interval === null) return 'No rated answer in one of the windows: nothing to compare.';
  const points = (value: number) => `${value > 0 ? '+' : ''}${(value * 100).toFixed(1)} pts`;
  const range = `95% interval ${points(interval[0])} to ${points(interval[1])}`;
  const small = fewest < SMALL ? ` Small sample (${fewest} rated answers in a window): read it as a hint.` : '';
  if (interval[0] > 0) return `The thumbs-down rate rose by ${points(difference)} (${range}): larger than chance, so it got worse.${small}`;
  if (interval[1] < 0) return `The thumbs-down rate fell by ${points(-difference).replace('+', '')} (${range}): larger than chance, so it helped.${small}`;
  return `The thumbs-down rate moved ${points(difference)} (${range}): within chance, so no change can be told from these counts.${small}`;
}

function renderMeasurement(data: unknown, quote: Quote): string {
  const result = data as Measurement;
  const side = (name: string, figures: Side) =>
    `${name} ${figures.since} to ${figures.until}: ${figures.conversations} conversations, ${figures.rated} rated answers, ${figures.thumbsDown} thumbs-down, rate ${shownValue('negativeRate', figures.rate)}`;
  const subject = result.article ? `Article ${quote(result.article.title)} (${result.article.id}, version ${result.article.version ?? '?'}), conversations whose answers used it` : 'All conversations';
  return [
    result.verdict,
    `${subject}, before and after ${result.moment} (${result.of}):`,
    `- ${side('before', result.before)}`,
    `- ${side('after', result.after)}`,
    `Requests: ${result.requests}${result.asOf ? `; from the workspace mirror as of ${result.asOf}` : ''}.`,
  ].join('\n');
}

const measureInput = z
  .object({
    articleId: idInput().optional().describe('Measure around its last update, on conversations that used it'),
    at: timeInput('Or the moment of the change.').optional(),
    days: z.number().int('must be a whole number').min(1, 'must be from 1 to 90').max(90, 'must be from 1 to 90').optional().describe(`Default ${DEFAULT_DAYS}`),
    botId: z.string().min(1).optional(),
  })
  .superRefine((input, context) => {
    if ((input.articleId === undefined) === (input.at === undefined)) {
      context.addIssue({ code: z.ZodIssueCode.custom, path: ['articleId'], message: 'give articleId or at (one of them)' });
    }
  });

export const measureTool = defineTool({
  name: 'measure_change',
  title: 'Measure whether a change worked',
  words: 'did help work improve effect impact fix before after since experiment significance confidence verify assess',
  scope: 'read',
  description:
    "Whether a change helped: the thumbs-down rate in equal windows before and after an article's last update (only conversations that used it) or a moment, with the difference and its 95% interval. Article ids: list_articles.",
  input: measureInput,
  handler: measureChange,
  text: renderMeasurement,
  taskSupport: 'optional',
});
