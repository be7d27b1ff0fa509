import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Config } from '../config.js';
import type { Api, ApiClient } from '../upstream/client.js';
import type { Logger } from '../log.js';
import type { CatalogTool, ToolDefinition, ToolGroup } from './define.js';
import type { StateStore } from '../state/store.js';
import type { Redaction } from '../redaction/redaction.js';
import type { RunningTasks } from './running-tasks.js';
import type { MirrorRegistry } from '../mirror/registry.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a tool run needs from the MCP request that started it: its progress token and a way to notify. */
export type Origin = Pick<Extra, '_meta' | 'sendNotification'>;

/** Internal runs (completions) have no request to report progress to. */
export const NO_ORIGIN: Origin = { _meta: undefined, sendNotification: async () => undefined };

/** Runs one tool call through the whole pipeline; resources, tasks and completion reuse it. */
export type Execute = (tool: ToolDefinition, rawArgs: Record<string, unknown>, origin: Origin, signal: AbortSignal, screened?: boolean) => Promise<CallToolResult>;

export interface EngineOptions {
  config: Config;
  catalog: ToolGroup[];
  client: ApiClient;
  logger: Logger;
  /** The key this session's upstream calls carry. */
  apiKey: string;
  /** Stateless HTTP cannot hold an elicitation round trip open: confirmation falls back to a preview. */
  elicitationAllowed?: boolean;
  /** Where confirmation tokens are recorded as spent (`spent`, by MAC): memory, SVC_STATE_DIR or Redis, as the runtime chose. */
  state: StateStore;
  /**
   * Where MCP tasks live (per process, or Redis so that any node of a fleet serves them); shared by
   * every session. `null`: no store a later request could reach (stateless HTTP without Redis, where the next
   * request may land on another node), so task augmentation is refused rather than leaving a task
   * id nobody can find while its work spends the key's budget.
   */
  taskStore: TaskStore | null;
  /** The tasks this process runs, for a draining node. */
  runningTasks: RunningTasks;
  /** Every workspace's mirror in this process; absent with SVC_MIRROR=off. */
  mirrors?: MirrorRegistry;
  /** The clock confirmation tokens are issued and checked against; tests move it to check expiry. */
  now?: () => number;
}

/** One session's view of the engine: what every stage of a call may read. */
export interface Session {
  options: EngineOptions;
  api: Api;
  /** The low-level server, for elicitation, log messages and the client's capabilities. */
  server: Server;
  /** Tools this session may call (toolsets, read-only), by name and former name: the listed ones, and under core the whole catalog. */
  toolsByName: ReadonlyMap<string, CatalogTool>;
  /** Every catalog tool: composite tools read through routes of groups the session may not expose. */
  catalogByName: ReadonlyMap<string, ToolDefinition>;
  /** Finds and masks the session's API key in every form a result, preview or log line must not show (`keyRedaction`). */
  keyRedaction: Redaction;
  /** What this session's results have already stated once (a rate's definition), so later results name it without repeating it. */
  stated: Set<string>;
  /** The MCP protocol version the session's initialize agreed, once it has. */
  protocolVersion?: string;
}

/** One tool call in flight. */
export interface ToolRun {
  session: Session;
  tool: ToolDefinition;
  rawArgs: Record<string, unknown>;
  origin: Origin;
  signal: AbortSignal;
  /** The arguments' shape was checked as they arrived (a tools/call's, by the incoming way's screen): not checked again. */
  screened?: boolean;
}
