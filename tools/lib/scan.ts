import type { ToolContext } from '../../src/engine/define.js';
import { ToolFailure } from '../../src/engine/errors.js';
import { DAY_MS } from '../../src/engine/inputs.js';
import { records } from './records.js';
import { RequestProgress } from './progress.js';
import type { ScanSummary } from '../../src/views/results.js';

export const MAX_WINDOW_MS = 90 * DAY_MS;
/** The largest page the list route gives. */
const PAGE_SIZE = 100;

/** The list route's filters, passed on unchanged to every page request. */
export interface ConversationFilters {
  botId?: string;
  source?: string[];
  channel?: string[];
  question?: string;
  answer?: string;
  csat?: number;
}

export interface ScanRequest {
  filters: ConversationFilters;
  since: number;
  until: number;
  /** Conversations to keep among those listed (the feedback filter), and that filter in words; all when omitted. */
  keep?: { test: (conversation: Record<string, unknown>) => boolean; label: string };
  /** Stop after this many kept conversations; no limit when omitted. */
  max?: number;
  /** What the caller does, for progress and cancellation messages ("Export", "Count"). */
  verb: string;
}

/** A listed conversation with the agent it was listed under: the API's record carries no agent id. */
export type AttributedConversation = Record<string, unknown> & { id: string; botId: string; agentName: string | null };

/**
 * The window [since, until], both ends inclusive as the API reads them, cut into the fewest slices
 * the list route accepts (since < until, at most 90 days each), newest first. Consecutive slices
 * meet without overlap (one starts 1 ms after the next ends), so every instant of the window, and
 * every conversation created in it, falls in exactly one slice. The instants are shared out
 * evenly, so no slice is left with a zero-length remainder (a window of k × (90 days + 1 ms)
 * would otherwise end in a slice with since = until, which the API refuses). Needs since < until.
 */
export function splitWindow(since: number, until: number): Array<{ since: number; until: number }> {
  const instants = until - since + 1;
  const count = Math.ceil(instants / (MAX_WINDOW_MS + 1));
  const size = Math.floor(instants / count);
  const longer = instants % count;
  const slices: Array<{ since: number; until: number }> = [];
  let end = until;
  for (let index = 0; index < count; index++) {
    const start = end - (size + (index < longer ? 1 : 0)) + 1;
    slices.push({ since: start, until: end });
    end = start - 1;
  }
  return slices;
}

interface Page {
  interactions: Record<string, unknown>[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * The agents to query one by one: the conversation record names no agent, so the only way to
 * attribute a conversation is to list it under a botId filter. With a botId given, that agent
 * alone (its name still comes from list_agents).
 */
async function agentsToScan(context: ToolContext, botId: string | undefined): Promise<ScanSummary['agents']> {
  const listed = await context.call('list_agents', {});
  const agents = records(listed).map((agent) => ({ botId: String(agent.id), agentName: typeof agent.name === 'string' && agent.name.trim() ? agent.name : null }));
  if (botId === undefined) return agents;
  return [agents.find((agent) => agent.botId === botId) ?? { botId, agentName: null }];
}

/**
 * Pages through every conversation matching the filters, agent by agent and slice by slice, and
 * hands each kept one to `visit` with its agent, as each page arrives: nothing listed is kept here,
 * so memory does not grow with the workspace. Requests stay at the floor: one agent listing, then
 * pages of 100 over the fewest slices. Reports progress, stops on cancellation, and says how many
 * requests it spent.
 */
export async function scanConversations(context: ToolContext, request: ScanRequest, visit: (conversation: AttributedConversation) => void | Promise<void>): Promise<ScanSummary> {
  const windows = splitWindow(request.since, request.until);
  const agents = await agentsToScan(context, request.filters.botId);
  const progress = new RequestProgress(context, request.verb);
  const estimate = new StepEstimate(agents.length * windows.length);
  progress.counted();
  let kept = 0;
  let scanned = 0;
  let pages = 0;
  let stoppedAt: string | undefined;
  let leftOut: ScanSummary['leftOut'];
  try {
    scan: for (const [agentIndex, agent] of agents.entries()) {
      for (const [rangeIndex, range] of windows.entries()) {
        let cursor: string | undefined;
        // An API that repeats the conversation its cursor named, at the top of the next page, must not get it counted twice.
        let previousPage = new Set<string>();
        do {
          if (context.signal.aborted) throw new ToolFailure(`${request.verb} cancelled after ${kept} conversations; nothing else was fetched.`);
          const page = (await context.call('list_conversations', { ...request.filters, botId: agent.botId, ...range, limit: PAGE_SIZE, cursor })) as Page;
          pages++;
          const thisPage = new Set<string>();
          const counts = (item: Record<string, unknown>) => !previousPage.has(String(item.id)) && (!request.keep || request.keep.test(item));
          const keptBefore = kept;
          for (const [index, item] of page.interactions.entries()) {
            const id = String(item.id);
            scanned++;
            thisPage.add(id);
            if (!counts(item)) continue;
            if (request.max !== undefined && kept >= request.max) {
              stoppedAt = agent.agentName ?? agent.botId;
              // What this page still held is known; past it, only when nothing else was left to read.
              const last = !page.hasMore && agentIndex === agents.length - 1 && rangeIndex === windows.length - 1;
              leftOut = { count: page.interactions.slice(index).filter(counts).length, exact: last };
              break;
            }
            kept++;
            await visit({ id, botId: agent.botId, agentName: agent.agentName, ...item });
          }
          previousPage = thisPage;
          cursor = page.hasMore && page.nextCursor ? page.nextCursor : undefined;
          const more = cursor !== undefined && stoppedAt === undefined;
          await progress.request(kept - keptBefore, estimate.left(pages, more));
        } while (cursor && stoppedAt === undefined);
        if (stoppedAt !== undefined) break scan;
      }
    }
  } finally {
    progress.stop();
  }
  const requests = 1 + pages;
  const notes = [
    `Queried ${agents.length === 1 ? 'one agent' : `${agents.length} agents one by one`} over ${windows.length} slice(s) of at most 90 days: ${requests} requests (1 list_agents, ${pages} list_conversations pages of up to ${PAGE_SIZE}).`,
  ];
  if (stoppedAt !== undefined) notes.push(`Stopped at maxConversations=${request.max} while reading agent ${stoppedAt}.`);
  if (kept === 0) notes.push(`No conversation matched ${describeScope(request)}.`);
  return {
    since: new Date(request.since).toISOString(),
    until: new Date(request.until).toISOString(),
    windows: windows.length,
    agents,
    requests,
    pages,
    scanned,
    count: kept,
    complete: stoppedAt === undefined,
    ...(leftOut && { leftOut }),
    note: notes.join(' '),
  };
}

/**
 * The requests a scan has still to make, estimated from the pages each finished agent-and-slice
 * (a step) took so far: until one has finished, from the pages the current one has taken.
 */
class StepEstimate {
  private finishedSteps = 0;
  private pagesOfFinishedSteps = 0;

  constructor(private readonly steps: number) {}

  left(pages: number, more: boolean): number {
    if (!more && pages > 0) {
      this.finishedSteps++;
      this.pagesOfFinishedSteps = pages;
    }
    const perStep = this.finishedSteps ? this.pagesOfFinishedSteps / this.finishedSteps : Math.max(1, pages);
    return Math.ceil((this.steps - this.finishedSteps - (more && pages > 0 ? 1 : 0)) * perStep) + (more && pages > 0 ? 1 : 0);
  }
}

/** The window and the filters in words, for results that matched nothing. */
export function describeScope(request: Pick<ScanRequest, 'since' | 'until' | 'filters' | 'keep'>): string {
  const filters = Object.entries(request.filters)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  if (request.keep) filters.push(request.keep.label);
  const window = `the window ${new Date(request.since).toISOString()} to ${new Date(request.until).toISOString()} (on createdAt)`;
  return filters.length ? `${window} with ${filters.join(', ')}` : `${window}, with no other filter`;
}

/** The first line of a scan that stopped early: how many it read, how many more match (exactly, or at least), and how to get the rest. */
export function cutShort(summary: ScanSummary | undefined, how: string): string | undefined {
  if (summary?.complete !== false) return undefined;
  const more = summary.leftOut;
  const read = more?.exact
    ? `read ${summary.count} of the ${summary.count + more.count} conversations that match`
    : `read ${summary.count} conversations, and at least ${more?.count ?? 1} more match (the pages, agents and slices after the stop were not read)`;
  return `INCOMPLETE: ${read}. ${how}`;
}
