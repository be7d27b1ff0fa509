import { z } from 'zod';
import { defineGroup, defineTool, type ToolContext } from '../src/engine/define.js';
import { ToolFailure } from '../src/engine/errors.js';
import { clockNow, DAY_MS, timeInput } from '../src/engine/inputs.js';
import { MirrorUnavailable, QueryRefused } from '../src/mirror/database.js';
import type { WorkspaceMirror } from '../src/mirror/mirror.js';
import { holdingsOf, renderHoldings, type Holdings } from './lib/mirror/holdings.js';
import { heldWindows, syncWindow, type SyncReport } from './lib/mirror/sync.js';
import { compactSchema, describeSchema } from './lib/mirror/tables.js';
import { merged } from './lib/mirror/windows.js';
import { explainTool } from './lib/explain/explain-tool.js';
import { measureTool } from './lib/explain/measure-tool.js';

/** What sync_workspace reads when no since is given, and query_workspace when the mirror holds nothing. */
const DEFAULT_DAYS = 365;
const DEFAULT_ROWS = 100;

/** The key's mirror, or a failure that says why there is none. */
async function openMirror(context: ToolContext): Promise<WorkspaceMirror> {
  if (!context.mirror) throw new ToolFailure('The workspace mirror is off (SVC_MIRROR=off): this tool needs it.');
  try {
    return await context.mirror.open();
  } catch (error) {
    if (error instanceof MirrorUnavailable) throw new ToolFailure(`The workspace mirror cannot run here: ${error.message}. Start svc-mcp with --mirror off to hide this tool.`);
    throw error;
  }
}

interface SyncResult extends Holdings {
  sync: Omit<SyncReport, 'agents' | 'asOf'> & { asOf: string };
  note?: string;
}

async function syncWorkspace(input: { since?: number; refresh?: boolean }, context: ToolContext): Promise<SyncResult> {
  const dropped = context.mirror?.dropped();
  const mirror = await openMirror(context);
  const until = clockNow();
  const since = input.since ?? until - DEFAULT_DAYS * DAY_MS;
  const report = await syncWindow(context, mirror, { since, until, refresh: input.refresh ? 'always' : 'stale', knowledge: true, verb: 'Sync' });
  return {
    sync: { requests: report.requests, pages: report.pages, read: report.read, slices: report.slices, asOf: new Date(report.asOf).toISOString() },
    ...(await holdingsOf(mirror)),
    ...(dropped ? { note: `This workspace's mirror had been ${dropped.reason} at ${new Date(dropped.at).toISOString()}; it was read again.` } : {}),
  };
}

function renderSync(data: unknown, quote: (value: unknown) => string): string {
  const result = data as SyncResult;
  const { sync } = result;
  const head = `Synced as of ${sync.asOf}: ${sync.requests} requests (${sync.pages} conversation pages over ${sync.slices} slice(s)), ${sync.read} conversations read.`;
  return [head, ...(result.note ? [result.note] : []), renderHoldings(result, quote)].join('\n');
}

const syncTool = defineTool({
  name: 'sync_workspace',
  title: 'Sync the workspace mirror',
  words: 'mirror cache copy download refresh update local offline index warehouse prefetch',
  scope: 'read',
  needsMirror: true,
  description: `Reads the workspace into its local mirror (conversations since \`since\`, default ${DEFAULT_DAYS} days, plus agents, articles, folders, actions) and says what it holds, what it cost and how fresh it is. refresh re-reads recent days now.`,
  input: z.object({
    since: timeInput(`Default ${DEFAULT_DAYS}d.`).optional(),
    refresh: z.boolean().optional(),
  }),
  handler: syncWorkspace,
  text: renderSync,
  taskSupport: 'optional',
});

interface QueryResult {
  columns: Array<{ name: string; type: string }>;
  rows: unknown[][];
  /** Rows shown; `more` when at least one more exists. */
  rowCount: number;
  more: boolean;
  asOf: string;
  held?: { since: string; until: string };
  ms: number;
  requests: number;
}

/**
 * The span the mirror holds for every agent, brought up to date first (its trailing days when stale);
 * when it holds nothing, the default year is read.
 */
async function freshSpan(context: ToolContext, mirror: WorkspaceMirror): Promise<SyncReport> {
  const held = merged(await heldWindows(mirror));
  const until = clockNow();
  const since = held.length ? Math.min(...held.map((window) => window.since)) : until - DEFAULT_DAYS * DAY_MS;
  return syncWindow(context, mirror, { since, until, refresh: 'stale', verb: 'Sync' });
}

async function queryWorkspace(input: { sql: string; maxRows?: number }, context: ToolContext): Promise<QueryResult> {
  const mirror = await openMirror(context);
  const report = await freshSpan(context, mirror);
  let answer: Awaited<ReturnType<WorkspaceMirror['query']>>;
  try {
    answer = await mirror.query(input.sql, { maxRows: input.maxRows ?? DEFAULT_ROWS, timeoutMs: context.config.mirrorQueryTimeoutMs });
  } catch (error) {
    if (error instanceof QueryRefused) throw new ToolFailure(error.message);
    throw error;
  }
  const holdings = await holdingsOf(mirror);
  return {
    columns: answer.columns,
    rows: answer.rows,
    rowCount: answer.rows.length,
    more: answer.more,
    asOf: new Date(report.asOf).toISOString(),
    held: holdings.span,
    ms: answer.ms,
    requests: report.requests,
  };
}

/** One CSV-like line per row, the whole table third-party text in one envelope. */
function renderQuery(data: unknown, quote: (value: unknown) => string): string {
  const result = data as QueryResult;
  const cut = result.more ? `First ${result.rowCount} rows; more exist: raise maxRows (up to 1000), or aggregate or filter in the SQL.` : `${result.rowCount} row${result.rowCount === 1 ? '' : 's'}.`;
  const held = result.held ? ` The mirror holds conversations created ${result.held.since} to ${result.held.until}.` : '';
  const head = `${cut} As of ${result.asOf}${result.requests ? ` (${result.requests} requests to bring it up to date)` : ''}; ${result.ms} ms.${held}`;
  if (result.rowCount === 0 && result.columns.length === 0) return head;
  const cell = (value: unknown) => (value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));
  const lines = [result.columns.map((column) => column.name).join(','), ...result.rows.map((row) => row.map(cell).join(','))];
  return `${head}\n${quote(lines.join('\n'))}`;
}

const queryTool = defineTool({
  name: 'query_workspace',
  title: 'Query the workspace mirror with SQL',
  words: 'sql select group aggregate join count sum average analytics report custom ad hoc duckdb table rows which how many triage',
  scope: 'read',
  core: true,
  needsMirror: true,
  description:
    'One read-only SQL SELECT (DuckDB) over the local mirror of the workspace: conversations, events, articles used, agents, articles and their versions, folders, actions. For questions no other tool answers, in one call.',
  input: z.object({
    sql: z.string().min(1, 'must not be empty').max(20_000, 'must be at most 20,000 characters').describe(`Tables (svc://mirror/schema): ${compactSchema()}`),
    maxRows: z.number().int('must be a whole number').min(1, 'must be from 1 to 1000').max(1000, 'must be from 1 to 1000').optional().describe(`default ${DEFAULT_ROWS}`),
  }),
  handler: queryWorkspace,
  text: renderQuery,
  taskSupport: 'optional',
});

/** svc://mirror/status: what the key's mirror holds, without opening one that is not held. */
async function mirrorStatus(context: ToolContext): Promise<Holdings | string> {
  if (!context.mirror) return 'The workspace mirror is off (SVC_MIRROR=off).';
  const mirror = await context.mirror.held();
  const dropped = context.mirror.dropped();
  if (!mirror)
    return dropped ? `Not held: ${dropped.reason} at ${new Date(dropped.at).toISOString()}.` : `Not loaded yet in this process (SVC_MIRROR=${context.mirror.mode}); a question that needs it reads it.`;
  return holdingsOf(mirror);
}

export const analytics = defineGroup({
  name: 'analytics',
  description: 'Answers over the whole workspace: its local mirror (sync, SQL), and why a metric moved or whether a change worked.',
  tools: [syncTool, queryTool, explainTool, measureTool],
  resources: [
    {
      name: 'mirror-schema',
      title: 'Mirror tables',
      description: "The workspace mirror's tables and columns, one line each.",
      uri: 'svc://mirror/schema',
      mimeType: 'text/markdown',
      text: describeSchema,
      needsMirror: true,
    },
    {
      name: 'mirror-status',
      title: 'Mirror status',
      description: 'What the mirror holds per window, when it was read, and what syncs cost.',
      uri: 'svc://mirror/status',
      needsMirror: true,
      handler: mirrorStatus,
      render: (data, quote) => (typeof data === 'string' ? data : renderHoldings(data as Holdings, quote)),
    },
  ],
});
