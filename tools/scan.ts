import type { ToolContext } from '../src/engine/define.js';
import { ToolFailure } from '../src/engine/errors.js';
import { DAY_MS } from '../src/engine/inputs.js';
import { records } from './common.js';
import type { ScanSummary } from './results.js';

export const MAX_WINDOW_MS = 90 * DAY_MS;

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

/** Newest window first, each at most 90 days, inclusive ends that do not overlap. */
export function splitWindow(since: number, until: number): Array<{ since: number; until: number }> {
  const windows: Array<{ since: number; until: number }> = [];
  for (let end = until; end >= since; end -= MAX_WINDOW_MS + 1) {
    windows.push({ since: Math.max(since, end - MAX_WINDOW_MS), until: end });
  }
  return windows;
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
  const agents = records(listed).map((agent) => ({ botId: String(agent.id), agentName: typeof agent.name === 'string' ? agent.name : null }));
  if (botId === undefined) return agents;
  return [agents.find((agent) => agent.botId === botId) ?? { botId, agentName: null }];
}

/**
 * Pages through every conversation matching the filters, agent by agent and 90-day window by
 * window, and hands each kept one to `visit` with its agent. Reports progress, stops on
 * cancellation, and says how many requests it spent.
 */
export async function scanConversations(
  context: ToolContext,
  request: ScanRequest,
  visit: (conversation: AttributedConversation) => void | Promise<void>,
): Promise<ScanSummary> {
  const windows = splitWindow(request.since, request.until);
  const agents = await agentsToScan(context, request.filters.botId);
  const steps = agents.length * windows.length;
  const seen = new Set<string>();
  let kept = 0;
  let scanned = 0;
  let pages = 0;
  let stoppedAt: string | undefined;
  scan: for (const [agentIndex, agent] of agents.entries()) {
    for (const [windowIndex, range] of windows.entries()) {
      const step = agentIndex * windows.length + windowIndex;
      let cursor: string | undefined;
      let windowPages = 0;
      do {
        if (context.signal.aborted) throw new ToolFailure(`${request.verb} cancelled after ${kept} conversations; nothing else was fetched.`);
        const page = (await context.call('list_conversations', { ...request.filters, botId: agent.botId, ...range, limit: 100, cursor })) as Page;
        pages++;
        windowPages++;
        for (const item of page.interactions) {
          const id = String(item.id);
          scanned++;
          if (seen.has(id) || (request.keep && !request.keep.test(item))) continue;
          seen.add(id);
          if (request.max !== undefined && kept >= request.max) {
            stoppedAt = agent.agentName ?? agent.botId;
            break;
          }
          kept++;
          await visit({ id, botId: agent.botId, agentName: agent.agentName, ...item });
        }
        cursor = page.hasMore && page.nextCursor ? page.nextCursor : undefined;
        await context.progress({
          // Halves the rest of this step's share on each page, so progress only ever grows.
          progress: step + (cursor ? 1 - 0.5 ** windowPages : 1),
          total: steps,
          message: `agent ${agentIndex + 1}/${agents.length} (${agent.agentName ?? agent.botId}), window ${windowIndex + 1}/${windows.length}; so far ${kept} kept of ${scanned} scanned`,
        });
      } while (cursor && stoppedAt === undefined);
      if (stoppedAt !== undefined) break scan;
    }
  }
  const requests = 1 + pages;
  const notes = [
    `Queried ${agents.length === 1 ? 'one agent' : `${agents.length} agents one by one`} over ${windows.length} window(s) of at most 90 days: ${requests} requests (1 list_agents, ${pages} list_conversations pages).`,
  ];
  if (stoppedAt !== undefined) notes.push(`Cut short at maxConversations=${request.max} while reading agent ${stoppedAt}: later pages and agents were not read; raise maxConversations to cover everything.`);
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
    note: notes.join(' '),
  };
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
