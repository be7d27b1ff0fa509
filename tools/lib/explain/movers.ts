import { isRecord } from '../../../src/json.js';
import type { AttributedConversation } from '../scan.js';

/**
 * What explain_change and measure_change count, and how a change splits into the parts that add up
 * to it. Each metric is counted over units: rated agent answers for the thumbs-down rate (each worth
 * 1 if thumbs-down), CSAT ratings for the mean (each worth its rating), escalation events for
 * escalations (each worth 1, summed, not averaged).
 *
 * A group's part of a rate's change is its share of the units times its rate, now less before:
 * s1/N1 - s0/N0 (s its units' worth, N all units of the window), so the parts of all groups add up
 * to the whole change exactly. A count's part is its count now less before. Articles are not a
 * partition (an answer may use several), so a unit's worth is split evenly over the articles it
 * used, or put under "no article": the parts still add up.
 */

export const METRICS = ['negativeRate', 'csat', 'escalations'] as const;
export type Metric = (typeof METRICS)[number];
export const DIMENSIONS = ['agent', 'source', 'channel', 'article'] as const;
export type MoverDimension = (typeof DIMENSIONS)[number];

/** The article group of units that used none. */
export const NO_ARTICLE = '(no article)';

export const METRIC_WORDS: Record<Metric, { name: string; unit: string; rate: boolean }> = {
  negativeRate: { name: 'thumbs-down rate', unit: 'rated answers', rate: true },
  csat: { name: 'CSAT mean', unit: 'CSAT ratings', rate: true },
  escalations: { name: 'escalations', unit: 'escalations', rate: false },
};

export interface Tally {
  units: number;
  worth: number;
}

export interface GroupTally extends Tally {
  name: string;
}

/** One window's units: in total, and per group of each dimension. */
export interface WindowTally {
  total: Tally;
  conversations: number;
  groups: Record<MoverDimension, Map<string, GroupTally>>;
}

export const emptyWindow = (): WindowTally => ({
  total: { units: 0, worth: 0 },
  conversations: 0,
  groups: { agent: new Map(), source: new Map(), channel: new Map(), article: new Map() },
});

export function addTo(window: WindowTally, dimension: MoverDimension, id: string, name: string, units: number, worth: number): void {
  const group = window.groups[dimension].get(id) ?? { name, units: 0, worth: 0 };
  group.units += units;
  group.worth += worth;
  window.groups[dimension].set(id, group);
}

const records = (value: unknown) => (Array.isArray(value) ? value.filter(isRecord) : []);

/** One conversation's units, counted into `window` (the scan's path; the mirror counts the same in SQL). */
export function countConversation(window: WindowTally, metric: Metric, conversation: AttributedConversation): void {
  window.conversations++;
  const events = records(conversation.events);
  const conversationArticles = records(conversation.usedArticles);
  for (const event of events) {
    const unit = unitOf(metric, event);
    if (!unit) continue;
    window.total.units++;
    window.total.worth += unit.worth;
    addTo(window, 'agent', conversation.botId, conversation.agentName ?? conversation.botId, 1, unit.worth);
    addTo(window, 'source', String(conversation.source ?? 'unknown'), String(conversation.source ?? 'unknown'), 1, unit.worth);
    addTo(window, 'channel', String(conversation.channel ?? 'unknown'), String(conversation.channel ?? 'unknown'), 1, unit.worth);
    const articles = metric === 'negativeRate' ? records(event.usedArticles) : conversationArticles;
    if (articles.length === 0) addTo(window, 'article', NO_ARTICLE, NO_ARTICLE, 1, unit.worth);
    for (const article of articles)
      addTo(window, 'article', String(article.id), typeof article.title === 'string' ? article.title : String(article.id), 1 / articles.length, unit.worth / articles.length);
  }
}

function unitOf(metric: Metric, event: Record<string, unknown>): { worth: number } | undefined {
  if (metric === 'negativeRate') return event.role === 'svcbot' && typeof event.approved === 'boolean' ? { worth: event.approved ? 0 : 1 } : undefined;
  if (metric === 'csat') return typeof event.csatRating === 'number' ? { worth: event.csatRating } : undefined;
  return event.type === 'silent_escalation' ? { worth: 1 } : undefined;
}

/** The metric over a tally: a rate or mean (null without units), or a count. */
export function metricValue(metric: Metric, tally: Tally): number | null {
  if (!METRIC_WORDS[metric].rate) return tally.worth;
  return tally.units > 0 ? round(tally.worth / tally.units) : null;
}

export interface Mover {
  id: string;
  name: string;
  now: { units: number; value: number | null };
  before: { units: number; value: number | null };
  /** Its part of the whole change, in the metric's unit; the parts of a dimension add up to the change. */
  part: number;
  /** part / change, when the change is not zero. */
  share: number | null;
  /** Fewer than SMALL units in one of the windows: its rate says little. */
  small?: true;
}

/** Below this many units in a window, a rate is flagged as a small sample. */
export const SMALL = 30;

/** Each dimension's groups with their part of the change, the largest part first. */
export function movers(metric: Metric, now: WindowTally, before: WindowTally): Record<MoverDimension, Mover[]> {
  const change = (metricValue(metric, now.total) ?? 0) - (metricValue(metric, before.total) ?? 0);
  const rate = METRIC_WORDS[metric].rate;
  const result = {} as Record<MoverDimension, Mover[]>;
  for (const dimension of DIMENSIONS) {
    const ids = new Set([...now.groups[dimension].keys(), ...before.groups[dimension].keys()]);
    const list: Mover[] = [];
    for (const id of ids) {
      const later = now.groups[dimension].get(id) ?? { name: before.groups[dimension].get(id)!.name, units: 0, worth: 0 };
      const earlier = before.groups[dimension].get(id) ?? { name: later.name, units: 0, worth: 0 };
      const part = rate ? share(later.worth, now.total.units) - share(earlier.worth, before.total.units) : later.worth - earlier.worth;
      const mover: Mover = {
        id,
        name: later.name,
        now: { units: round(later.units), value: metricValue(metric, later) },
        before: { units: round(earlier.units), value: metricValue(metric, earlier) },
        part: round(part),
        share: change !== 0 ? round(part / change) : null,
      };
      if (rate && (later.units < SMALL || earlier.units < SMALL)) mover.small = true;
      list.push(mover);
    }
    result[dimension] = list.sort((a, b) => Math.abs(b.part) - Math.abs(a.part) || a.id.localeCompare(b.id));
  }
  return result;
}

const share = (worth: number, units: number) => (units > 0 ? worth / units : 0);
export const round = (value: number) => Math.round(value * 1000) / 1000;
