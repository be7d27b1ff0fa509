import type { ToolContext } from '../../../src/engine/define.js';
import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import type { Dimension, ScanSummary } from '../../../src/views/results.js';
import type { ConversationFilters } from '../scan.js';
import type { ConversationStats } from '../stats.js';
import { countInMirror, matchingInMirror, type MirrorCount } from './figures.js';
import { syncWindow, type SyncReport } from './sync.js';
import type { Interval } from './windows.js';

/** A count conversation_stats asks for: one window (two with compareTo), the filters, a cut. */
export interface StatsAsk {
  dimensions: readonly Dimension[];
  filters: ConversationFilters;
  feedback?: 'negative' | 'positive' | 'any';
  max?: number;
  windows: Array<Interval & { stats: ConversationStats }>;
}

/**
 * Whether the mirror can answer: it holds conversations as the API lists them, and applies agent,
 * source, channel and feedback itself; the text filters (question, answer) and the CSAT filter are
 * the API's own matching, so a count with one of them is read from the API as before.
 */
export function mirrorAnswers(context: ToolContext, filters: ConversationFilters): boolean {
  return context.mirror !== undefined && filters.question === undefined && filters.answer === undefined && filters.csat === undefined;
}

/**
 * Counts from the workspace mirror, first bringing it up to date for the span the windows cover
 * (what it does not hold yet, and its trailing days when their last reading is too old). Where the
 * engine cannot load on this platform (MirrorUnavailable), the caller reads the API instead.
 */
export async function countFromMirror(context: ToolContext, ask: StatsAsk, verb: string): Promise<ScanSummary> {
  const access = context.mirror!;
  const dropped = access.dropped();
  const mirror: WorkspaceMirror = await access.open();
  const span = { since: Math.min(...ask.windows.map((window) => window.since)), until: Math.max(...ask.windows.map((window) => window.until)) };
  const report = await syncWindow(context, mirror, { ...span, refresh: 'stale', verb });
  const feedback = ask.feedback === 'any' ? undefined : ask.feedback;
  let count = 0;
  let matching = 0;
  for (const window of ask.windows) {
    const request: MirrorCount = { since: window.since, until: window.until, filters: ask.filters, feedback, max: ask.max };
    const counted = await countInMirror(mirror, ask.dimensions, request, window.stats);
    // The main window is the last one asked (compareTo's previous window comes first).
    if (window === ask.windows.at(-1)) {
      count = counted;
      matching = ask.max !== undefined ? await matchingInMirror(mirror, request) : counted;
    }
  }
  return summaryOf(report, ask, count, matching, dropped);
}

function summaryOf(report: SyncReport, ask: StatsAsk, count: number, matching: number, dropped: ReturnType<NonNullable<ToolContext['mirror']>['dropped']>): ScanSummary {
  const main = ask.windows.at(-1)!;
  const asOf = new Date(report.asOf).toISOString();
  const notes = [
    `Answered from the workspace mirror as of ${asOf}: ${report.requests === 0 ? 'no request, it was up to date' : `${report.requests} requests brought it up to date (${report.pages} pages over ${report.slices} slice(s))`}.`,
  ];
  if (dropped) notes.push(`It had been ${dropped.reason} at ${new Date(dropped.at).toISOString()}, and was read again.`);
  const complete = count === matching;
  if (!complete) notes.push(`The newest ${count} of ${matching} conversations were counted; without maxConversations the mirror counts them all, with no more requests.`);
  if (count === 0) notes.push('No conversation matched the window and filters.');
  return {
    since: new Date(main.since).toISOString(),
    until: new Date(main.until).toISOString(),
    windows: report.slices,
    agents: ask.filters.botId === undefined ? report.agents : report.agents.filter((agent) => agent.botId === ask.filters.botId),
    requests: report.requests,
    pages: report.pages,
    scanned: report.read,
    count,
    complete,
    ...(complete ? {} : { leftOut: { count: matching - count, exact: true } }),
    note: notes.join(' '),
    mirror: { asOf },
  };
}
