import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { needsConfirmation } from './confirm.js';
import { selectTools, toolListEntry } from './listing.js';
import { runTool } from './pipeline.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { startTask } from './tasks.js';
import { SERVER_NAME, SERVER_VERSION, type EngineOptions, type Execute, type Session } from './types.js';

/**
 * One MCP server per session (stdio: per process). Tools are served through raw `tools/list` and
 * `tools/call` handlers rather than `registerTool`: the listing is JSON Schema computed once per
 * definition from the catalog (with engine fields such as `view` and `confirm` that depend on the
 * session), and the call pipeline coerces client quirks, refuses unknown fields by name and
 * phrases every error itself, none of which `registerTool`'s own zod parsing allows.
 */
export function createMcpServer(options: EngineOptions): McpServer {
  const { config, catalog } = options;
  const tools = selectTools(catalog, config);
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION, title: 'Support-Agent Workspace' },
    {
      capabilities: {
        tools: { listChanged: false },
        logging: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore: new InMemoryTaskStore(),
      instructions:
        'Tools for a Support-Agent Workspace: AI support agents (botId), their conversations, knowledge and configuration. Read svc://guide for ids, limits and workflows. Write tools ask the user to confirm before sending.',
    },
  );
  const session: Session = {
    options,
    api: options.client.forKey(options.apiKey),
    server: server.server,
    toolsByName: new Map(tools.map((tool) => [tool.name, tool])),
    catalogByName: new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool])),
  };
  const execute: Execute = (tool, rawArgs, origin, signal) => runTool({ session, tool, rawArgs, origin, signal });

  const listing: Tool[] = tools.map((tool) => toolListEntry(tool, needsConfirmation(tool, config.confirm)));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = session.toolsByName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}. Call tools/list for the available tools.`);
    }
    const rawArgs = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (request.params.task && tool.taskSupport && extra.taskStore) {
      return startTask(tool, rawArgs, extra, request.params.task.ttl, execute);
    }
    return execute(tool, rawArgs, extra, extra.signal);
  });

  registerResources(server, catalog, config, session.toolsByName, execute);
  registerPrompts(server, catalog, session.toolsByName);
  return server;
}
