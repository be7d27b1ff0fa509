import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { hashKey } from '../key-hash.js';
import { holdLiveKey } from '../live-keys.js';
import type { Logger } from '../log.js';
import type { ToolDefinition } from './define.js';
import { CALL_TOOL, FIND_TOOLS, findTools, parseGatewayCall } from './gateway.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { textError, validationResult } from './errors.js';
import { argumentProblems } from './inputs.js';
import { sessionElicits } from './confirm.js';
import { hasGateway, sessionSurface, toolListEntry, toolListing, unreachableReason } from './listing.js';
import { runTool } from './pipeline.js';
import { keyRedaction, type Redaction } from '../redaction.js';
import { redactResult } from './secrets.js';
import { registerPrompts } from './prompts.js';
import { setToolCallHandler, validatorOnFirstUse } from '../sdk/shortcuts.js';
import { connectServer, type MessageObserver, type ToolCallScreen } from '../sdk/incoming.js';
import { clientShowsViews, registerResources, registerViews } from './resources.js';
import { startTask, taskStoreForKey } from './tasks.js';
import { SERVER_NAME, SERVER_VERSION } from '../meta.js';
import type { EngineOptions, Execute, Extra, Session } from './types.js';

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
  };
  // Log lines are redacted of this key in every form while the session lives.
  const releaseKey = holdLiveKey(options.apiKey, session.keyRedaction);
  const execute: Execute = (tool, rawArgs, origin, signal) => runTool({ session, tool, rawArgs, origin, signal });
  const gateway = hasGateway(config);

  /** Every way into a tool ends here: a listed tool, one reached under core, or call_tool's target. */
  const run = (tool: ToolDefinition, rawArgs: Record<string, unknown>, extra: Extra, task: { ttl?: number | null } | undefined, viaGateway: boolean) => {
    // call_tool declares task support for whatever it runs, so a task asked of it is always honoured.
    if (task && (tool.taskSupport || viaGateway) && extra.taskStore) return startTask(tool, rawArgs, extra, task.ttl, execute, options.runningTasks);
    return execute(tool, rawArgs, extra, extra.signal);
  };

  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: toolListing(catalog, config, sessionElicits(session), clientShowsViews(server.server.getClientCapabilities())),
  }));
  // Not async: the dispatch gets the pipeline's promise itself, two microtask turns sooner than through an async function's own.
  setToolCallHandler(
    server.server,
    (request, extra) => {
      const { name, task } = request.params;
      const rawArgs = (request.params.arguments ?? {}) as Record<string, unknown>;
      if (gateway && name === FIND_TOOLS) {
        const elicits = sessionElicits(session);
        return findTools(rawArgs, catalog, [...session.toolsByName.values()], (tool) => toolListEntry(tool, config, elicits));
      }
      if (gateway && name === CALL_TOOL) {
        const target = parseGatewayCall(rawArgs);
        if (!target.ok) return target.result;
        const tool = session.toolsByName.get(target.name);
        if (!tool) return textError(unreachableReason(catalog, config, target.name));
        return run(tool, target.arguments, extra, task, true);
      }
      const tool = session.toolsByName.get(name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, unreachableReason(catalog, config, name));
      return run(tool, rawArgs, extra, task, false);
    },
    config.sdkShortcuts,
  );

  registerResources(server, catalog, config, session.toolsByName, execute);
  registerViews(server, surface.listed);
  registerPrompts(server, catalog, session.toolsByName);
  const refuseRawArguments = rawArgumentsRefusal(session.keyRedaction, options.logger);
  return {
    connect: (transport, observers = []) => connectServer(server, transport, { shortcuts: config.sdkShortcuts, observers, screenToolCall: refuseRawArguments }),
    async close() {
      releaseKey();
      await server.close();
    },
  };
}

/**
 * Arguments are checked as they arrived, before the SDK's own tools/call schema (zod 4 records)
 * parses them: that parse copies each field into a new object, so a `"__proto__"` field (an own
 * key after JSON.parse) becomes the copy's prototype, invisible to every later check and read
 * through by the tool's schema; a top-level `constructor` field is refused with a raw schema dump
 * or throws (`"constructor": null`). A call whose raw arguments break a shape rule (prototype
 * names at any depth, nesting, size) is answered as the pipeline answers every refusal: a tool
 * error naming the field, nothing sent.
 */
function rawArgumentsRefusal(redaction: Redaction, logger: Logger): ToolCallScreen {
  return (name, args) => {
    const problems = argumentProblems(args);
    if (!problems.length) return undefined;
    const tool = String(name);
    logger.info({ tool, ms: 0, isError: true }, 'tool call');
    return redactResult(validationResult({ name: tool }, problems.join('\n')), [redaction]);
  };
}
