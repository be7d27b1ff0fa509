import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Config } from '../config.js';
import { VIEWS, type ViewName } from '../views/catalog.js';
import { UI_EXTENSION, VIEW_CSP, VIEW_MIME_TYPE, viewHtml, viewUri } from '../views/index.js';
import type { ResourceDefinition, ToolDefinition, ToolGroup } from './define.js';
import { NO_ORIGIN, type Execute, type Extra } from './types.js';

type CompletionSource = NonNullable<ResourceDefinition['complete']>[string];

/** Clients ask for completions on every keystroke; one listing serves them for this long. */
const COMPLETION_CACHE_MS = 30_000;
const MAX_COMPLETIONS = 100;

/**
 * Resources are views over read tools (same route, validation and shaping), plus static text.
 * Template variables complete from the list tool that gives those ids.
 */
export function registerResources(server: McpServer, catalog: ToolGroup[], config: Config, toolsByName: ReadonlyMap<string, ToolDefinition>, execute: Execute): void {
  const completionIds = new Map<string, { at: number; ids: Promise<string[]> }>();
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
  for (const resource of catalog.flatMap((group) => group.resources ?? [])) {
    if (resource.tool && !toolsByName.has(resource.tool)) continue;
    if (resource.needsMirror && config.mirror === 'off') continue;
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
        .map(([variable, source]) => [variable, async (value: string) => (await idsFrom(source)).filter((id) => id.startsWith(value)).slice(0, MAX_COMPLETIONS)]),
    );
    server.registerResource(resource.name, new ResourceTemplate(resource.uri, { list: undefined, complete }), metadata, (uri, variables, extra) => read(uri, variables, extra));
  }
}

async function readResource(
  resource: ResourceDefinition,
  variables: Record<string, string | string[]>,
  extra: Extra,
  toolsByName: ReadonlyMap<string, ToolDefinition>,
  execute: Execute,
): Promise<string> {
  if (resource.text) return resource.text();
  if (resource.handler) return resultText(await execute(resourceTool(resource), {}, extra, extra.signal));
  const tool = toolsByName.get(resource.tool!)!;
  const args = { ...resource.args, ...Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value])) };
  return resultText(await execute(tool, args, extra, extra.signal));
}

function resultText(result: CallToolResult): string {
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (result.isError) throw new McpError(ErrorCode.InvalidParams, text);
  return text;
}

const resourceTools = new WeakMap<ResourceDefinition, ToolDefinition>();

/** A resource read through the session (its handler) runs as a read tool would: the same context, redaction and envelope for third-party text. */
function resourceTool(resource: ResourceDefinition): ToolDefinition {
  let tool = resourceTools.get(resource);
  if (!tool) {
    const { handler, render } = resource;
    tool = { name: resource.name, title: resource.title, scope: 'read', description: resource.description, input: z.object({}), handler: (_input, context) => handler!(context), text: render };
    resourceTools.set(resource, tool);
  }
  return tool;
}

async function listIds(tool: ToolDefinition, source: CompletionSource, config: Config, execute: Execute): Promise<string[]> {
  const result = await execute(tool, { ...source.args, view: 'compact' }, NO_ORIGIN, AbortSignal.timeout(config.timeoutMs)).catch(() => undefined);
  const data = result?.structuredContent;
  const items = tool.list ? data?.[tool.list.items] : undefined;
  if (!Array.isArray(items)) return [];
  return items.map((item) => source.pick(item as Record<string, unknown>)).filter((id): id is string => typeof id === 'string');
}

/** Whether the client declared the MCP Apps extension (for HTML views); only then do tools name their views. */
export function clientShowsViews(capabilities: ClientCapabilities | undefined): boolean {
  const extension = capabilities?.extensions?.[UI_EXTENSION] as { mimeTypes?: unknown } | undefined;
  if (!extension) return false;
  return !Array.isArray(extension.mimeTypes) || extension.mimeTypes.includes(VIEW_MIME_TYPE);
}

/**
 * Each view a listed tool names, as a `ui://svc-mcp/<name>` resource: one HTML page that loads
 * nothing from anywhere, so its policy names no outside domain. Listed and served only once the
 * client has declared the MCP Apps extension at initialization, as tools name their views only then.
 */
export function registerViews(server: McpServer, tools: ToolDefinition[]): void {
  const names = new Set(tools.map((tool) => tool.ui).filter((name): name is ViewName => name !== undefined));
  const views = [...names].map((name) => {
    const uri = viewUri(name);
    const _meta = { ui: { csp: VIEW_CSP, prefersBorder: true } };
    const view = server.registerResource(`view-${name}`, uri, { ...VIEWS[name], mimeType: VIEW_MIME_TYPE, _meta }, async () => ({
      contents: [{ uri, mimeType: VIEW_MIME_TYPE, text: await viewHtml(name), _meta }],
    }));
    // Set directly rather than with disable(), which would notify a client that is not connected yet.
    view.enabled = false;
    return view;
  });
  if (views.length === 0) return;
  const initialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    initialized?.();
    const shown = clientShowsViews(server.server.getClientCapabilities());
    for (const view of views) view.enabled = shown;
  };
}
