import type { ToolContext } from '../../../src/engine/define.js';
import { isKeyRefused, ToolFailure } from '../../../src/engine/errors.js';
import { DAY_MS } from '../../../src/engine/inputs.js';
import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import type { Change } from '../../../src/mirror/schema.js';
import { isRecord } from '../../../src/json.js';
import { RequestProgress } from '../progress.js';
import { records } from '../records.js';
import { splitWindow } from '../scan.js';
import { conversationChanges, conversationsGone, listed, rowOf } from './ingest.js';
import { readKnowledge } from './knowledge.js';
import { AGENTS, SYNC_RUNS, SYNC_WINDOWS } from './tables.js';
import { gaps, merged, overlap, withRead, type HeldWindow, type Interval } from './windows.js';

/** The largest page the list route gives. */
const PAGE_SIZE = 100;
/**
 * Pages between two compactions during a sync: appended rows stay uncompressed until one, so a
 * long sync compacts as it goes and its memory peak stays that of 5,000 conversations.
 */
const PAGES_PER_COMPACTION = 50;

export interface SyncWanted extends Interval {
  /** `always`: re-read the trailing SVC_MIRROR_REFRESH_DAYS now; `stale`: only when its last read is older than SVC_MIRROR_MAX_AGE_MS. */
  refresh: 'always' | 'stale';
  /** Also read articles, drafts, folders and actions (a few requests). */
  knowledge?: boolean;
  /** For progress messages: "Sync", "Count". */
  verb: string;
}

export interface Agent {
  botId: string;
  agentName: string | null;
}

export interface SyncReport {
  requests: number;
  pages: number;
  /** Conversations read from the API. */
  read: number;
  /** Windows of at most 90 days read, over all agents. */
  slices: number;
  agents: Agent[];
  /** When the oldest reading this window relies on began (for its trailing days, their last re-read). */
  asOf: number;
}

/**
 * Brings a workspace's mirror up to date for a window, one sync of the workspace at a time: what
 * no earlier sync read (per agent: the conversation record names no agent, so each agent's are
 * listed under its botId), and the trailing SVC_MIRROR_REFRESH_DAYS again when their last reading
 * is older than SVC_MIRROR_MAX_AGE_MS (feedback, CSAT and events arrive late). Pages of 100 over
 * the fewest slices of at most 90 days, each page put in the mirror as it arrives, at background
 * priority so a person's call goes first. A slice read whole also drops the conversations the API
 * no longer lists in it. Cancelled, it keeps what it read: the next sync starts where it stopped.
 */
export function syncWindow(context: ToolContext, mirror: WorkspaceMirror, wanted: SyncWanted): Promise<SyncReport> {
  return mirror.exclusive(() => new Sync(context, mirror, wanted).run());
}

class Sync {
  private readonly now = Date.now();
  private readonly window: Interval;
  private readonly progress: RequestProgress;
  private held: HeldWindow[] = [];
  private pages = 0;
  private read = 0;
  private slices = 0;
  /** Conversations per ms of window, per agent, from what the mirror holds and what this sync read. */
  private readonly density = new Map<string, { conversations: number; ms: number }>();

  constructor(
    private readonly context: ToolContext,
    private readonly mirror: WorkspaceMirror,
    private readonly wanted: SyncWanted,
  ) {
    this.window = { since: wanted.since, until: Math.min(wanted.until, this.now) };
    this.progress = new RequestProgress(context, wanted.verb);
  }

  async run(): Promise<SyncReport> {
    this.held = await heldWindows(this.mirror);
    let agents = await heldAgents(this.mirror);
    let outcome = 'complete';
    try {
      const maxAge = this.context.config.mirrorMaxAgeMs;
      if (agents.length === 0 || this.wanted.knowledge || this.now - this.mirror.verifiedAt > maxAge || this.plan(agents).length > 0) agents = await this.readAgents();
      const plan = this.plan(agents);
      await this.learnDensity(agents);
      this.progress.expect(this.progress.requests + this.estimate(plan) + (this.wanted.knowledge ? 4 : 0));
      for (const { botId, slice } of slicesNewestFirst(plan, agents)) await this.readSlice(botId, slice, plan);
      if (this.wanted.knowledge) await readKnowledge(this.context, this.mirror, () => this.progress.request());
      return { requests: this.progress.requests, pages: this.pages, read: this.read, slices: this.slices, agents, asOf: asOf(this.held, agents, this.window, this.tail()) };
    } catch (error) {
      outcome = this.context.signal.aborted ? 'cancelled' : `failed: ${(error as Error).message.slice(0, 200)}`;
      if (isKeyRefused(error)) await this.context.mirror?.forget('the API refused the key (401): its mirror was deleted');
      throw error;
    } finally {
      this.progress.stop();
      if (this.progress.requests > 0 && !this.context.mirror?.forgotten()) await this.recordRun(outcome).catch(() => undefined);
    }
  }

  /** The trailing days a sync re-reads, within the window asked for. */
  private tail(): Interval | undefined {
    return overlap(this.window, { since: this.now - this.context.config.mirrorRefreshDays * DAY_MS, until: this.now });
  }

  /**
   * Per agent, what to read: the window's gaps, and its trailing days when their last reading is
   * too old (or a refresh was asked for). A window read up to the present counts as reaching the
   * present for SVC_MIRROR_MAX_AGE_MS after it was read, so a question a minute later reads nothing.
   */
  private plan(agents: Agent[]): Array<{ botId: string; window: Interval }> {
    const maxAge = this.context.config.mirrorMaxAgeMs;
    const tail = this.tail();
    const plan: Array<{ botId: string; window: Interval }> = [];
    for (const { botId } of agents) {
      const own = this.held.filter((window) => window.botId === botId);
      const reaching = own.map((window) => (window.until >= window.syncedAt - 1000 && this.now - window.syncedAt <= maxAge ? { ...window, until: this.now } : window));
      const reads = gaps(this.window, reaching);
      const tailReadAt = tail ? Math.min(...own.filter((window) => overlap(window, tail)).map((window) => window.syncedAt)) : Number.POSITIVE_INFINITY;
      if (tail && (this.wanted.refresh === 'always' || this.now - tailReadAt > maxAge)) reads.push(tail);
      for (const window of merged(reads)) plan.push({ botId, window });
    }
    return plan;
  }

  private async readAgents(): Promise<Agent[]> {
    const agents = records(await this.call('list_agents', {}));
    this.mirror.verifiedAt = Date.now();
    // Counted, not announced: the first notification comes with the plan's estimate, after the first page.
    this.progress.counted();
    await this.mirror.apply([listed(AGENTS, agents, (agent) => ({ record: agent }))]);
    return agents.map((agent) => ({ botId: String(agent.id), agentName: typeof agent.name === 'string' && agent.name.trim() ? agent.name : null }));
  }

  private async readSlice(botId: string, slice: Interval, plan: Array<{ botId: string; window: Interval }>): Promise<void> {
    // Every slice of one sync is as of its start, when the window's end was fixed: so a window that
    // reached the present then counts as reaching it, whichever slice was read last.
    const syncedAt = this.now;
    const seen = new Set<string>();
    let previousPage = new Set<string>();
    let cursor: string | undefined;
    do {
      if (this.context.signal.aborted) throw new ToolFailure(`Sync cancelled after ${this.progress.requests} requests; what was read is kept, and the next sync goes on from there.`);
      const page = await this.call('list_conversations', { botId, since: slice.since, until: slice.until, limit: PAGE_SIZE, cursor });
      const listedHere = isRecord(page) && Array.isArray(page.interactions) ? page.interactions.filter(isRecord) : [];
      // An API that repeats the conversation its cursor named, at the top of the next page, must not get it twice.
      const fresh = listedHere.filter((conversation) => !previousPage.has(String(conversation.id)));
      previousPage = new Set(listedHere.map((conversation) => String(conversation.id)));
      for (const conversation of fresh) seen.add(String(conversation.id));
      await this.mirror.apply(conversationChanges(botId, fresh, syncedAt));
      this.pages++;
      this.read += fresh.length;
      if (this.pages % PAGES_PER_COMPACTION === 0) await this.mirror.settle();
      cursor = isRecord(page) && page.hasMore === true && typeof page.nextCursor === 'string' && page.nextCursor ? page.nextCursor : undefined;
      await this.progress.request(fresh.length, cursor ? this.estimate(plan) + 1 : this.estimate(plan));
    } while (cursor);
    const held = await this.mirror.rows('SELECT id FROM conversations WHERE "botId" = $1 AND "createdAt" BETWEEN epoch_ms(CAST($2 AS BIGINT)) AND epoch_ms(CAST($3 AS BIGINT))', [
      botId,
      slice.since,
      slice.until,
    ]);
    const gone = held.map((row) => String(row.id)).filter((id) => !seen.has(id));
    this.held = withRead(this.held, { botId, ...slice, syncedAt });
    const windows = this.held.filter((window) => window.botId === botId).map((window) => rowOf(SYNC_WINDOWS, { ...window }));
    await this.mirror.apply([...conversationsGone(gone), { put: SYNC_WINDOWS.name, key: 'botId', keys: [botId], rows: windows }]);
    this.slices++;
    const density = this.density.get(botId) ?? { conversations: 0, ms: 0 };
    this.density.set(botId, { conversations: density.conversations + seen.size, ms: density.ms + slice.until - slice.since + 1 });
  }

  /** Requests still to make for what the plan has left: each slice's pages from its agent's density. */
  private estimate(plan: Array<{ botId: string; window: Interval }>): number {
    let pages = 0;
    for (const { botId, window } of plan) {
      const unread = gaps(
        window,
        this.held.filter((held) => held.botId === botId && held.syncedAt >= this.now),
      );
      const density = this.density.get(botId) ?? this.averageDensity();
      for (const part of unread) {
        for (const slice of splitWindow(part.since, part.until)) {
          const expected = density && density.ms > 0 ? (density.conversations / density.ms) * (slice.until - slice.since + 1) : 0;
          pages += Math.max(1, Math.ceil(expected / PAGE_SIZE));
        }
      }
    }
    return pages;
  }

  /**
   * Densities from what the mirror already holds: a re-read or an older agent's new window starts
   * from a good guess. An agent with nothing held yet is guessed at the average of the others.
   */
  private async learnDensity(agents: Agent[]): Promise<void> {
    const counts = await this.mirror.rows('SELECT "botId", CAST(count(*) AS DOUBLE) AS n FROM conversations GROUP BY "botId"');
    for (const { botId } of agents) {
      const ms = merged(this.held.filter((window) => window.botId === botId)).reduce((sum, window) => sum + window.until - window.since + 1, 0);
      const conversations = Number(counts.find((row) => row.botId === botId)?.n ?? 0);
      if (ms > 0) this.density.set(botId, { conversations, ms });
    }
  }

  private averageDensity(): { conversations: number; ms: number } | undefined {
    const known = [...this.density.values()];
    if (known.length === 0) return undefined;
    return { conversations: known.reduce((sum, entry) => sum + entry.conversations, 0), ms: known.reduce((sum, entry) => sum + entry.ms, 0) };
  }

  private call(tool: string, input: Record<string, unknown>): Promise<unknown> {
    return this.context.call(tool, input, { background: true });
  }

  private async recordRun(outcome: string): Promise<void> {
    const run = { startedAt: this.now, finishedAt: Date.now(), since: this.window.since, until: this.window.until, requests: this.progress.requests, conversations: this.read, outcome };
    const changes: Change[] = [{ insert: SYNC_RUNS.name, rows: [rowOf(SYNC_RUNS, run)] }];
    await this.mirror.apply(changes);
    await this.context.mirror?.settle(this.mirror);
  }
}

/**
 * Every slice of the plan, the newest first across agents: a sync cut short holds the recent months
 * of every agent, which is what most questions ask about.
 */
function slicesNewestFirst(plan: Array<{ botId: string; window: Interval }>, agents: Agent[]): Array<{ botId: string; slice: Interval }> {
  const order = new Map(agents.map((agent, index) => [agent.botId, index]));
  const slices = plan.flatMap(({ botId, window }) => splitWindow(window.since, window.until).map((slice) => ({ botId, slice })));
  return slices.sort((a, b) => b.slice.until - a.slice.until || (order.get(a.botId) ?? 0) - (order.get(b.botId) ?? 0));
}

/**
 * When the reading began that a window's answer relies on: for its trailing days (the part that
 * changes), their oldest last re-read over every agent; for an older window, its oldest reading.
 */
function asOf(held: HeldWindow[], agents: Agent[], window: Interval, tail: Interval | undefined): number {
  const focus = tail ?? window;
  const relevant = held.filter((piece) => agents.some((agent) => agent.botId === piece.botId) && overlap(piece, focus));
  return relevant.length ? Math.min(...relevant.map((piece) => piece.syncedAt)) : Date.now();
}

export async function heldWindows(mirror: WorkspaceMirror): Promise<HeldWindow[]> {
  const rows = await mirror.rows(
    'SELECT "botId", CAST(epoch_ms("since") AS DOUBLE) AS since, CAST(epoch_ms("until") AS DOUBLE) AS until, CAST(epoch_ms("syncedAt") AS DOUBLE) AS "syncedAt" FROM sync_windows',
  );
  return rows.map((row) => ({ botId: String(row.botId), since: Number(row.since), until: Number(row.until), syncedAt: Number(row.syncedAt) }));
}

export async function heldAgents(mirror: WorkspaceMirror): Promise<Agent[]> {
  const rows = await mirror.rows('SELECT id, name FROM agents ORDER BY rowid');
  return rows.map((row) => ({ botId: String(row.id), agentName: typeof row.name === 'string' && row.name.trim() ? row.name : null }));
}

/** Whether every agent's conversations of the window are held (read whole at least once). */
export function covers(held: readonly HeldWindow[], agents: readonly Agent[], window: Interval): boolean {
  return agents.every(
    ({ botId }) =>
      gaps(
        window,
        held.filter((piece) => piece.botId === botId),
      ).length === 0,
  );
}
