import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { hashKey } from '../redaction/key-hash.js';
import { holdLiveKey } from '../redaction/live-keys.js';
import type { ToolDefinition } from './define.js';
import { CALL_WRITE_TOOL, FIND_TOOLS, findTools, GATEWAY_RUNNERS, type GatewayRunner, parseGatewayCall, scopeRefusal } from './gateway.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { textError } from './errors.js';
import { sessionElicits } from './confirm.js';
import { hasGateway, sessionInfo, sessionSurface, toolListEntry, toolListing, unreachableReason } from './listing.js';
import { SERVER_INFO, serverInfoResult } from './server-info.js';
import { rawArgumentsScreen, runTool } from './pipeline.js';
import { keyRedaction } from '../redaction/redaction.js';
import { registerPrompts } from './prompts.js';
import { setToolCallHandler, type ToolCallHandler, validatorOnFirstUse } from '../sdk/shortcuts.js';
import { connectServer, type MessageObserver } from '../sdk/incoming.js';
import { clientShowsViews, registerResources, registerViews } from './resources.js';
import { startTask, taskStoreForKey } from './tasks.js';
import { SERVER_NAME, SERVER_VERSION } from '../meta.js';
import type { EngineOptions, Execute, Extra, Session } from './types.js';

const READ_ONLY_WRITE_RUNNER = `Unknown tool ${CALL_WRITE_TOOL} in read-only mode: it runs tools that change data (SVC_READ_ONLY); nothing was sent.`;

/** One session's server: the SDK's, reached through the way its messages take (src/sdk/incoming.ts). */
export interface EngineServer {
  /** Serves one transport; `observers` (telemetry) see every message first and every answer. */
  connect(transport: Transport, observers?: MessageObserver[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * One MCP server per session (stdio: per process). Tools are served through raw `tools/list` and
 * `tools/call` handlers rather than `registerTool`: the listing is JSON Schema computed once per
 * (configuration, elicitation) from the catalog, with engine fields such as `view` and `confirm`
 * that depend on the session, and the call pipeline coerces client quirks, refuses unknown fields
 * by name and phrases every error itself, none of which `registerTool`'s own zod parsing allows.
 */
export function createMcpServer(options: EngineOptions): EngineServer {
  const { config, catalog } = options;
  const surface = sessionSurface(catalog, config);
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION, title: 'Support-Agent Workspace' },
    {
      capabilities: {
        tools: { listChanged: false },
        logging: {},
        ...(options.taskStore ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      },
      taskStore: options.taskStore ? taskStoreForKey(options.taskStore, hashKey(options.apiKey)) : undefined,
      instructions: surface.instructions,
      jsonSchemaValidator: validatorOnFirstUse(config.sdkShortcuts),
    },
  );
  const session: Session = {
    options,
    api: options.client.forKey(options.apiKey),
    server: server.server,
    toolsByName: surface.toolsByName,
    catalogByName: surface.catalogByName,
    keyRedaction: keyRedaction(options.apiKey),
    stated: new Set(),
  };
  // Log lines are redacted of this key in every form while the session lives.
  const releaseKey = holdLiveKey(options.apiKey, session.keyRedaction);
  const execute: Execute = (tool, rawArgs, origin, signal, screened) => runTool({ session, tool, rawArgs, origin, signal, screened });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: toolListing(catalog, config, sessionElicits(session), clientShowsViews(server.server.getClientCapabilities())),
  }));
  setToolCallHandler(server.server, toolCallHandler(session, execute), config.sdkShortcuts);
  registerResources(server, catalog, config, session.toolsByName, execute);
  registerViews(server, surface.listed);
  registerPrompts(server, catalog, session.toolsByName);
  const refuseRawArguments = rawArgumentsScreen(session.keyRedaction, options.logger);
  // The protocol version the initialize answer agreed, for server_info.
  const agreed: MessageObserver = {
    sent(message) {
      if ('result' in message && typeof message.result.protocolVersion === 'string' && 'serverInfo' in message.result) session.protocolVersion = message.result.protocolVersion;
    },
  };
  return {
    connect: (transport, observers = []) => connectServer(server, transport, { shortcuts: config.sdkShortcuts, observers: [...observers, agreed], screenToolCall: refuseRawArguments }),
    async close() {
      releaseKey();
      await server.close();
    },
  };
}

/**
 * tools/call: server_info, the gateway under core, then the tools this session reaches. Not async:
 * the dispatch gets the pipeline's promise itself, two microtask turns sooner than through an async
 * function's own.
 */
function toolCallHandler(session: Session, execute: Execute): ToolCallHandler {
  const { config, catalog, runningTasks } = session.options;
  const gateway = hasGateway(config);
  /** Every way into a tool ends here: a listed tool, one reached under core, or a gateway runner's target. */
  const run = (tool: ToolDefinition, rawArgs: Record<string, unknown>, extra: Extra, task: { ttl?: number | null } | undefined, viaGateway: boolean) => {
    // The runners declare task support for whatever they run, so a task asked of one is always honoured.
    // A direct call's arguments passed the incoming way's screen (src/sdk/incoming.ts); a runner's may
    // have come as JSON text the runner parsed, which the pipeline checks.
    const checked: Execute = (target, args, origin, signal) => execute(target, args, origin, signal, !viaGateway);
    if (task && (tool.taskSupport || viaGateway) && extra.taskStore) return startTask(tool, rawArgs, extra, task.ttl, checked, runningTasks);
    return checked(tool, rawArgs, extra, extra.signal);
  };
  return (request, extra) => {
    const { name, task } = request.params;
    const rawArgs = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (name === SERVER_INFO) return serverInfoResult(rawArgs, () => sessionInfo(session, extra.requestInfo));
    if (gateway && name === FIND_TOOLS) {
      const elicits = sessionElicits(session);
      return findTools(rawArgs, catalog, [...new Set(session.toolsByName.values())], (tool) => toolListEntry(tool, config, elicits), config.readOnly);
    }
    if (gateway && GATEWAY_RUNNERS.includes(name)) {
      const runner = name as GatewayRunner;
      if (runner === CALL_WRITE_TOOL && config.readOnly) throw new McpError(ErrorCode.InvalidParams, READ_ONLY_WRITE_RUNNER);
      const target = parseGatewayCall(runner, rawArgs);
      if (!target.ok) return target.result;
      const tool = session.toolsByName.get(target.name);
      if (!tool) return textError(unreachableReason(catalog, config, target.name));
      const refusal = scopeRefusal(runner, tool);
      if (refusal) return textError(refusal);
      return run(tool, target.arguments, extra, task, true);
    }
    const tool = session.toolsByName.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, unreachableReason(catalog, config, name));
    return run(tool, rawArgs, extra, task, false);
  };
}
