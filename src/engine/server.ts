import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { Api, ApiClient, ApiRequest } from '../http/client.js';
import type { Logger } from '../log.js';
import { describeRequest, needsConfirmation } from './confirm.js';
import type { PromptDefinition, ResourceDefinition, ToolContext, ToolDefinition, ToolGroup } from './define.js';
import { errorResult, validationResult } from './errors.js';
import { acceptsUnknownKeys, coerceToSchema, formatIssues, objectShape } from './inputs.js';
import { shapeResult, type View } from './output.js';
import { redactSecrets, secretsIn } from './secrets.js';
import { toolListEntry } from './schema.js';

export const SERVER_NAME = 'svc-mcp';
export const SERVER_VERSION = '0.1.0';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** What a tool run needs from the MCP request that started it: its progress token and a way to notify. */
type Origin = Pick<Extra, '_meta' | 'sendNotification'>;
/** Internal runs (completions) have no request to report progress to. */
const NO_ORIGIN: Origin = { _meta: undefined, sendNotification: async () => undefined };
type Execute = (tool: ToolDefinition, rawArgs: Record<string, unknown>, origin: Origin, signal: AbortSignal) => Promise<CallToolResult>;

export interface EngineOptions {
  config: Config;
  catalog: ToolGroup[];
  client: ApiClient;
  logger: Logger;
  /** The key this session's upstream calls carry. */
  apiKey: string;
  /** Stateless HTTP cannot hold an elicitation round trip open: confirmation falls back to `confirm: true`. */
  elicitationAllowed?: boolean;
}

/** Tools visible under the configuration: toolsets first, then read-only mode from `readOnlyHint`. */
export function selectTools(catalog: ToolGroup[], config: Pick<Config, 'toolsets' | 'readOnly'>): ToolDefinition[] {
  const groups = config.toolsets === 'all' ? catalog : catalog.filter((group) => config.toolsets.includes(group.name));
  return groups.flatMap((group) => group.tools).filter((tool) => !config.readOnly || tool.scope === 'read');
}

/** Unknown group names are a configuration error, not a silent empty server. */
export function unknownToolsets(catalog: ToolGroup[], config: Pick<Config, 'toolsets'>): string[] {
  if (config.toolsets === 'all') return [];
  const known = new Set(catalog.map((group) => group.name));
  return config.toolsets.filter((name) => !known.has(name));
}

const ENGINE_FIELDS = ['view', 'confirm'];

export function createMcpServer(options: EngineOptions): McpServer {
  const { config, catalog, logger } = options;
  const tools = selectTools(catalog, config);
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const api = options.client.forKey(options.apiKey);
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

  const listing: Tool[] = tools.map((tool) => toolListEntry(tool, needsConfirmation(tool, config.confirm)));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));

  const execute: Execute = async (tool, rawArgs, origin, signal) => {
    const started = Date.now();
    const result = await runTool({ tool, rawArgs, origin, signal, api, options, toolsByName, server });
    logger.info({ tool: tool.name, ms: Date.now() - started, isError: Boolean(result.isError) }, 'tool call');
    return result;
  };

  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = toolsByName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}. Call tools/list for the available tools.`);
    }
    const rawArgs = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (request.params.task && tool.taskSupport && extra.taskStore) {
      return startTask(tool, rawArgs, extra, request.params.task.ttl, execute);
    }
    return execute(tool, rawArgs, extra, extra.signal);
  });

  registerResources(server, catalog, config, toolsByName, execute);
  registerPrompts(server, catalog, toolsByName);
  return server;
}

/**
 * Runs a tool call as an MCP task: the call returns at once with a task id, the work goes on in
 * the background under the same limiter, and `tasks/cancel` stops it.
 */
async function startTask(
  tool: ToolDefinition,
  rawArgs: Record<string, unknown>,
  extra: Extra,
  ttl: number | null | undefined,
  execute: Execute,
) {
  const store = extra.taskStore!;
  const task = await store.createTask({ ttl: ttl ?? 3_600_000, pollInterval: 1000 });
  const controller = new AbortController();
  const watch = setInterval(() => {
    store.getTask(task.taskId).then(
      (current) => current.status === 'cancelled' && controller.abort(new Error('task cancelled')),
      () => controller.abort(new Error('task gone')),
    );
  }, 250);
  void execute(tool, rawArgs, extra, controller.signal)
    .then(async (result) => {
      if (!controller.signal.aborted) await store.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result);
    })
    .catch(() => undefined)
    .finally(() => clearInterval(watch));
  return { task };
}

interface RunToolArguments {
  tool: ToolDefinition;
  rawArgs: Record<string, unknown>;
  origin: Origin;
  signal: AbortSignal;
  api: Api;
  options: EngineOptions;
  toolsByName: Map<string, ToolDefinition>;
  server: McpServer;
}

const engineOptionsSchema = z.object({
  view: z.enum(['compact', 'full']).optional(),
  confirm: z.boolean().optional(),
});

/**
 * Secrets the caller passed in (data-step headers, tokens) are masked wherever they would come
 * back: in data the API echoes, in a preview, and in quoted upstream error text.
 */
async function runTool(run: RunToolArguments): Promise<CallToolResult> {
  const secrets = secretsIn(coerceToSchema(run.tool.input, run.rawArgs));
  const result = await callTool(run);
  return secrets.length ? (redactSecrets(result, secrets) as CallToolResult) : result;
}

async function callTool(run: RunToolArguments): Promise<CallToolResult> {
  const { tool, options, signal } = run;
  try {
    const engineArgs = engineOptionsSchema.safeParse(coerceToSchema(engineOptionsSchema, pick(run.rawArgs, ENGINE_FIELDS)));
    if (!engineArgs.success) return validationResult(tool, formatIssues(engineArgs.error.issues));
    const parsed = validateInput(tool, omit(run.rawArgs, ENGINE_FIELDS), options.config);
    if (!parsed.ok) return validationResult(tool, parsed.message);
    const input = parsed.value;
    const view: View = engineArgs.data.view ?? 'compact';
    const context = toolContext(run);

    let data: unknown;
    if (tool.route) {
      const request = { ...buildRequest(tool, input, options.config.providerNames), signal, onRetry: retryNotice(run) };
      if (needsConfirmation(tool, options.config.confirm)) {
        const decision = await confirm(run, request, engineArgs.data.confirm === true);
        if (decision) return decision;
      }
      data = await run.api.request(request);
      if (tool.after) data = await tool.after(data, input, context);
    } else if (tool.handler) {
      data = await tool.handler(input, context);
    }
    if (tool.transform) data = tool.transform(data, input);
    return shapeResult(data, {
      view,
      list: tool.list,
      untrusted: tool.untrusted,
      capChars: options.config.maxResultTokens * 4,
      structured: true,
    });
  } catch (error) {
    return errorResult(tool, error);
  }
}

type Validation = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

export function validateInput(tool: ToolDefinition, rawArgs: Record<string, unknown>, config: Pick<Config, 'defaultBotId'>): Validation {
  const shape = objectShape(tool.input);
  const args = coerceToSchema(tool.input, rawArgs) as Record<string, unknown>;
  if (!acceptsUnknownKeys(tool.input)) {
    const unknown = Object.keys(args).filter((key) => !(key in shape));
    if (unknown.length) {
      return { ok: false, message: `- ${unknown.join(', ')}: unknown field(s); this tool accepts ${[...Object.keys(shape), ...(tool.list ? ['view'] : [])].join(', ') || 'no arguments'}` };
    }
  }
  let result = tool.input.safeParse(args);
  // The default agent fills botId only where the call needs one, so optional botId filters are not narrowed by it.
  if (!result.success && config.defaultBotId && 'botId' in shape && (args.botId === undefined || args.botId === '')) {
    result = tool.input.safeParse({ ...args, botId: config.defaultBotId });
  }
  if (!result.success) return { ok: false, message: formatIssues(result.error.issues) };
  return { ok: true, value: result.data as Record<string, unknown> };
}

/** Fills `{param}`s (URL-encoded), then query and body fields, from validated input (provider kinds as their wire names). */
export function buildRequest(tool: ToolDefinition, validated: Record<string, unknown>, providerNames: Partial<Record<string, string>> = {}): ApiRequest {
  const route = tool.route!;
  const input = { ...validated };
  for (const field of route.providerFields ?? []) {
    const kind = input[field];
    if (typeof kind === 'string') input[field] = providerNames[kind] ?? kind;
  }
  const used = new Set<string>();
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    used.add(name);
    return encodeURIComponent(String(input[name]));
  });
  const query: Record<string, never> = {};
  for (const name of route.query ?? []) {
    used.add(name);
    if (input[name] !== undefined) query[name] = input[name] as never;
  }
  let body: Record<string, unknown> | undefined;
  if (route.body === 'rest') {
    body = Object.fromEntries(Object.entries(input).filter(([name, value]) => !used.has(name) && value !== undefined));
  } else if (route.body) {
    body = Object.fromEntries(route.body.filter((name) => input[name] !== undefined).map((name) => [name, input[name]]));
  }
  return {
    method: route.method,
    path,
    query: Object.keys(query).length ? query : undefined,
    body,
    read: route.read ?? route.method === 'GET',
  };
}

/**
 * The confirmation gate. Returns a result when nothing may be sent (preview, decline), or
 * undefined when the request may go.
 */
async function confirm(run: RunToolArguments, request: ApiRequest, confirmedByArgument: boolean): Promise<CallToolResult | undefined> {
  const description = describeRequest(request);
  const canElicit = run.options.elicitationAllowed !== false && Boolean(run.server.server.getClientCapabilities()?.elicitation);
  if (canElicit) {
    const answer = await run.server.server.elicitInput(
      {
        mode: 'form',
        message: `${run.tool.title}: send this request to the workspace API?\n\n${description}`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Send it', description: 'Yes sends the request exactly as shown.' } },
          required: ['confirm'],
        },
      },
      { signal: run.signal },
    );
    if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
    const how = answer.action === 'accept' ? 'answered no' : answer.action === 'decline' ? 'declined' : 'cancelled';
    return notSent(`The user ${how}; nothing was sent.`, description, run.tool);
  }
  if (confirmedByArgument) return undefined;
  return notSent(
    'Preview only; nothing was sent. Show this to the user and, once they agree, call the same tool again with the same arguments plus "confirm": true.',
    description,
    run.tool,
  );
}

function notSent(message: string, description: string, tool: ToolDefinition): CallToolResult {
  return {
    content: [{ type: 'text', text: `${message}\n\n${tool.name} would send:\n${description}` }],
    structuredContent: { sent: false, message, request: description },
  };
}

function toolContext(run: RunToolArguments): ToolContext {
  const progressToken = run.origin._meta?.progressToken;
  return {
    api: run.api,
    config: run.options.config,
    logger: run.options.logger,
    signal: run.signal,
    local: run.options.config.transport === 'stdio',
    async progress(update) {
      if (progressToken === undefined) return;
      await run.origin
        .sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } })
        .catch(() => undefined);
    },
    async call(toolName, input) {
      const target = run.toolsByName.get(toolName);
      if (!target?.route) throw new Error(`internal: ${toolName} is not a route tool`);
      return run.api.request({ ...buildRequest(target, input, run.options.config.providerNames), signal: run.signal, onRetry: retryNotice(run) });
    },
  };
}

/** Retries are reported to the client as MCP log messages (shown per the client's logging level). */
function retryNotice(run: RunToolArguments): (notice: string) => void {
  return (notice) => {
    run.server.server.sendLoggingMessage({ level: 'warning', logger: SERVER_NAME, data: `${run.tool.name}: ${notice}` }).catch(() => undefined);
  };
}

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in source).map((key) => [key, source[key]]));
}

function omit(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !keys.includes(key)));
}

function registerResources(
  server: McpServer,
  catalog: ToolGroup[],
  config: Config,
  toolsByName: Map<string, ToolDefinition>,
  execute: Execute,
): void {
  const resources = catalog.flatMap((group) => group.resources ?? []);
  const completionIds = new Map<string, { at: number; ids: Promise<string[]> }>();
  /** Ids for completion, fetched once per list and reused briefly: clients ask on every keystroke. */
  const idsFrom = (source: CompletionSource): Promise<string[]> => {
    const cacheKey = JSON.stringify([source.tool, source.args]);
    const cached = completionIds.get(cacheKey);
    if (cached && Date.now() - cached.at < COMPLETION_CACHE_MS) return cached.ids;
    const ids = listIds(toolsByName.get(source.tool)!, source, config, execute);
    completionIds.set(cacheKey, { at: Date.now(), ids });
    // A failed or empty listing is not kept: the next keystroke asks again.
    void ids.then((list) => list.length === 0 && completionIds.delete(cacheKey));
    return ids;
  };
  for (const resource of resources) {
    if (resource.tool && !toolsByName.has(resource.tool)) continue;
    const metadata = { title: resource.title, description: resource.description, mimeType: resource.mimeType ?? 'text/plain' };
    const read = async (uri: URL, variables: Record<string, string | string[]>, extra: Extra) => ({
      contents: [{ uri: uri.href, mimeType: metadata.mimeType, text: await readResource(resource, variables, extra, toolsByName, execute) }],
    });
    if (!resource.uri.includes('{')) {
      server.registerResource(resource.name, resource.uri, metadata, (uri, extra) => read(uri, {}, extra));
      continue;
    }
    const complete = Object.fromEntries(
      Object.entries(resource.complete ?? {})
        .filter(([, source]) => toolsByName.has(source.tool))
        .map(([variable, source]) => [
          variable,
          async (value: string) => (await idsFrom(source)).filter((id) => id.startsWith(value)).slice(0, 100),
        ]),
    );
    server.registerResource(resource.name, new ResourceTemplate(resource.uri, { list: undefined, complete }), metadata, (uri, variables, extra) =>
      read(uri, variables, extra),
    );
  }
}

async function readResource(
  resource: ResourceDefinition,
  variables: Record<string, string | string[]>,
  extra: Extra,
  toolsByName: Map<string, ToolDefinition>,
  execute: Execute,
): Promise<string> {
  if (resource.text) return resource.text();
  const tool = toolsByName.get(resource.tool!)!;
  const args = { ...resource.args, ...Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value])) };
  const result = await execute(tool, args, extra, extra.signal);
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (result.isError) throw new McpError(ErrorCode.InvalidParams, text);
  return text;
}

type CompletionSource = NonNullable<ResourceDefinition['complete']>[string];
const COMPLETION_CACHE_MS = 30_000;

async function listIds(tool: ToolDefinition, source: CompletionSource, config: Config, execute: Execute): Promise<string[]> {
  const result = await execute(tool, { ...source.args, view: 'compact' }, NO_ORIGIN, AbortSignal.timeout(config.timeoutMs)).catch(() => undefined);
  const data = result?.structuredContent;
  const items = tool.list ? data?.[tool.list.items] : undefined;
  if (!Array.isArray(items)) return [];
  return items.map((item) => source.pick(item as Record<string, unknown>)).filter((id): id is string => typeof id === 'string');
}

function registerPrompts(server: McpServer, catalog: ToolGroup[], toolsByName: Map<string, ToolDefinition>): void {
  const prompts: PromptDefinition[] = catalog
    .flatMap((group) => group.prompts ?? [])
    .filter((prompt) => prompt.uses.every((name) => toolsByName.has(name)));
  for (const prompt of prompts) {
    const argsSchema = Object.fromEntries(
      prompt.arguments.map((argument) => [argument.name, (argument.required ? z.string() : z.string().optional()).describe(argument.description)]),
    );
    server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description, argsSchema }, (args: Record<string, string | undefined>) => ({
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.render(args) } }],
    }));
  }
}
