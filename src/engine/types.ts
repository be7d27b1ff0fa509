import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Config } from '../config.js';
import type { Api, ApiClient } from '../http/client.js';
import type { Logger } from '../log.js';
import type { ToolDefinition, ToolGroup } from './define.js';
import type { SpentTokens } from './spent-tokens.js';

export const SERVER_NAME = 'svc-mcp';
export const SERVER_VERSION = '0.1.0';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a tool run needs from the MCP request that started it: its progress token and a way to notify. */
export type Origin = Pick<Extra, '_meta' | 'sendNotification'>;

/** Internal runs (completions) have no request to report progress to. */
export const NO_ORIGIN: Origin = { _meta: undefined, sendNotification: async () => undefined };

/** Runs one tool call through the whole pipeline; resources, tasks and completion reuse it. */
export type Execute = (tool: ToolDefinition, rawArgs: Record<string, unknown>, origin: Origin, signal: AbortSignal) => Promise<CallToolResult>;

export interface EngineOptions {
  config: Config;
  catalog: ToolGroup[];
  client: ApiClient;
  logger: Logger;
  /** The key this session's upstream calls carry. */
  apiKey: string;
  /** Stateless HTTP cannot hold an elicitation round trip open: confirmation falls back to a preview. */
  elicitationAllowed?: boolean;
  /** Where confirmation tokens are recorded as spent (per process, or Redis for a fleet). */
  spentTokens: SpentTokens;
}

/** One session's view of the engine: what every stage of a call may read. */
export interface Session {
  options: EngineOptions;
  api: Api;
  /** The low-level server, for elicitation, log messages and the client's capabilities. */
  server: Server;
  /** Tools this session exposes (toolsets, read-only). */
  toolsByName: Map<string, ToolDefinition>;
  /** Every catalog tool: composite tools read through routes of groups the session may not expose. */
  catalogByName: Map<string, ToolDefinition>;
}

/** One tool call in flight. */
export interface ToolRun {
  session: Session;
  tool: ToolDefinition;
  rawArgs: Record<string, unknown>;
  origin: Origin;
  signal: AbortSignal;
}
