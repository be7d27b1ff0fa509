import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config.js';
import { needsConfirmation, sessionElicits } from './confirm.js';
import type { CatalogTool, ToolDefinition, ToolGroup } from './define.js';
import { LISTED_ENGINE_OPTIONS } from './engine-options.js';
import { gatewayListing } from './gateway.js';
import { catalogHash, serverInfoListing, type ServerInfo } from './server-info.js';
import { SERVER_NAME, SERVER_VERSION } from '../meta.js';
import { toolSchemas } from './schema.js';
import type { Extra, Session } from './types.js';
import { viewUri } from '../views/index.js';

/** The toolset that lists the most used tools plus the gateway (`find_tools`, `call_read_tool`, `call_write_tool`) to the rest. */
export const CORE_TOOLSET = 'core';

type Surface = Pick<Config, 'toolsets' | 'readOnly' | 'readOnlyGrant' | 'mirror'>;

/** Whether the session's surface is `core`, so the gateway tools are listed and reach the whole catalog. */
export function hasGateway(config: Pick<Config, 'toolsets'>): boolean {
  return config.toolsets !== 'all' && config.toolsets.includes(CORE_TOOLSET);
}

/** Tools listed under the configuration: toolsets (groups, `core`) first, then read-only mode from `readOnlyHint`. */
export function selectTools(catalog: ToolGroup[], config: Surface): CatalogTool[] {
  const { toolsets } = config;
  const listed = (tool: ToolDefinition, group: ToolGroup) => toolsets === 'all' || toolsets.includes(group.name) || (Boolean(tool.core) && toolsets.includes(CORE_TOOLSET));
  return catalog.flatMap((group) => group.tools.filter((tool) => listed(tool, group))).filter((tool) => allowedInMode(tool, config));
}

/**
 * Tools a call may name: the listed ones, and under `core` every catalog tool, since the gateway
 * reaches the whole catalog and a view calls its tools directly.
 */
export function reachableTools(catalog: ToolGroup[], config: Surface): CatalogTool[] {
  if (!hasGateway(config)) return selectTools(catalog, config);
  return catalog.flatMap((group) => group.tools).filter((tool) => allowedInMode(tool, config));
}

/** A tool's name and the names it had before a rename, which still call it. */
function namesOf(tool: ToolDefinition): string[] {
  return [tool.name, ...(tool.formerNames ?? [])];
}

function allowedInMode(tool: ToolDefinition, config: Pick<Config, 'readOnly' | 'mirror'>): boolean {
  return (!config.readOnly || tool.scope === 'read') && !(tool.needsMirror && config.mirror === 'off');
}

/** Unknown toolset names are a configuration error, not a silent empty server. */
export function unknownToolsets(catalog: ToolGroup[], config: Pick<Config, 'toolsets'>): string[] {
  if (config.toolsets === 'all') return [];
  const known = new Set([CORE_TOOLSET, ...catalog.map((group) => group.name)]);
  return config.toolsets.filter((name) => !known.has(name));
}

/** Why a tool name cannot be called in this configuration; the same words whether it was named directly or through a gateway runner. */
export function unreachableReason(catalog: ToolGroup[], config: Surface, name: string): string {
  const group = catalog.find((candidate) => candidate.tools.some((tool) => namesOf(tool).includes(name)));
  if (!group) return `Unknown tool ${name}. ${hasGateway(config) ? 'find_tools' : 'tools/list'} names the available tools.`;
  const tool = group.tools.find((candidate) => namesOf(candidate).includes(name));
  if (config.readOnly && tool?.scope === 'write') {
    if (config.readOnlyGrant) {
      return `Unknown tool ${name} in this session: it changes data, and the access granted when this application was signed in is read-only (the person chose "Read only"); nothing was sent. To make changes, sign in again without it.`;
    }
    return `Unknown tool ${name} in read-only mode: it changes data (SVC_READ_ONLY); nothing was sent.`;
  }
  if (tool?.needsMirror && config.mirror === 'off') return `Unknown tool ${name} here: it works on the workspace mirror, which is off (SVC_MIRROR=off).`;
  return `Unknown tool ${name} here: its group ${group.name} is not in SVC_TOOLSETS; nothing was sent.`;
}

/** The four hints every tool carries; read-only mode is derived from `readOnlyHint`. No title: the tool's own `title` says it once. */
export function annotationsOf(tool: ToolDefinition): NonNullable<Tool['annotations']> {
  return {
    readOnlyHint: tool.scope === 'read',
    destructiveHint: Boolean(tool.destructive),
    idempotentHint: tool.scope === 'read' || Boolean(tool.idempotent),
    openWorldHint: Boolean(tool.openWorld),
  };
}

const listings = new WeakMap<ToolGroup[], WeakMap<Surface & Pick<Config, 'confirm'>, Map<string, Tool[]>>>();

/**
 * `tools/list` for a session, computed once per (configuration, elicitation, views) and shared by
 * every session alike: HTTP mode builds a server per session or per request.
 */
export function toolListing(catalog: ToolGroup[], config: Surface & Pick<Config, 'confirm'>, elicits: boolean, showsViews = false): Tool[] {
  let byConfig = listings.get(catalog);
  if (!byConfig) listings.set(catalog, (byConfig = new WeakMap()));
  let bySession = byConfig.get(config);
  if (!bySession) byConfig.set(config, (bySession = new Map()));
  const key = `${elicits}/${showsViews}`;
  let listing = bySession.get(key);
  if (!listing) {
    listing = selectTools(catalog, config).map((tool) => toolListEntry(tool, config, elicits, showsViews));
    if (hasGateway(config)) listing.push(...gatewayListing(catalog, config.readOnly));
    listing.push(serverInfoListing());
    bySession.set(key, listing);
  }
  return listing;
}

/** Every tool a client may be offered in any configuration, each as a client that shows everything sees it (server_info's catalog hash). */
export function everyToolEntry(catalog: ToolGroup[]): Tool[] {
  const tools = catalog.flatMap((group) => group.tools).map((tool) => toolListEntry(tool, { confirm: 'none' }, true, true));
  return [...tools, ...gatewayListing(catalog, false), serverInfoListing()];
}

const entries = new WeakMap<ToolDefinition, Map<string, Tool>>();

/**
 * A tool as a session sees it. Where confirmation goes by token (no elicitation), the tool takes
 * `confirm` and lists no output schema, since its answer may be a preview rather than the
 * documented result (a client checks every non-error result against a listed schema). A client
 * with the MCP Apps extension also learns the view it may show beside the result.
 */
export function toolListEntry(tool: ToolDefinition, config: Pick<Config, 'confirm'>, elicits: boolean, showsViews = false): Tool {
  const byToken = !elicits && needsConfirmation(tool, config.confirm);
  let variants = entries.get(tool);
  if (!variants) entries.set(tool, (variants = new Map()));
  const key = `${byToken}/${showsViews}`;
  let entry = variants.get(key);
  if (!entry) variants.set(key, (entry = buildListEntry(tool, byToken, showsViews)));
  return entry;
}

function buildListEntry(tool: ToolDefinition, confirmByToken: boolean, showsViews: boolean): Tool {
  const schemas = toolSchemas(tool);
  const inputSchema = compactSchema(schemas.input);
  inputSchema.type = 'object';
  inputSchema.properties = { ...inputSchema.properties };
  if (tool.list) {
    // The guide says what the views hold; the enum is self-explanatory in the listing.
    inputSchema.properties.view = LISTED_ENGINE_OPTIONS.view;
  }
  if (confirmByToken) {
    inputSchema.properties.confirm = LISTED_ENGINE_OPTIONS.confirm;
  }
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchema as Tool['inputSchema'],
    ...(schemas.output && !confirmByToken ? { outputSchema: schemas.output as Tool['outputSchema'] } : {}),
    annotations: annotationsOf(tool),
    ...(tool.taskSupport ? { execution: { taskSupport: tool.taskSupport } } : {}),
    // _meta is not shown to the model; the legacy key serves hosts that predate `ui.resourceUri`.
    ...(showsViews && tool.ui ? { _meta: { ui: { resourceUri: viewUri(tool.ui) }, 'ui/resourceUri': viewUri(tool.ui) } } : {}),
  };
}

const isEmptySchema = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/**
 * Every listed byte is paid on every turn, so the listing leaves out what tells a model nothing:
 * `additionalProperties: true` or `{}` (JSON Schema's default) and `minLength: 1` (no model sends
 * an empty id on purpose, and validation still refuses one, naming the field).
 */
function compactSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(compactSchema) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const entries = Object.entries(schema).filter(([key, value]) => !(key === 'additionalProperties' && (value === true || isEmptySchema(value))) && !(key === 'minLength' && value === 1));
  return Object.fromEntries(entries.map(([key, value]) => [key, compactSchema(value)])) as T;
}

/**
 * Server instructions, from the exposed groups' own descriptions and the configuration, so a
 * client that shows them learns the map of the catalog without a tool call.
 */
export function serverInstructions(catalog: ToolGroup[], config: Surface & Pick<Config, 'confirm'>): string {
  const reachable = new Set(reachableTools(catalog, config).map((tool) => tool.group));
  const groups = catalog.filter((group) => reachable.has(group.name)).map((group) => `- ${group.name}: ${group.description}`);
  const guides = catalog.flatMap((group) => group.resources ?? []).filter((resource) => resource.text);
  const lines = ['Tool groups:', ...groups];
  if (hasGateway(config))
    lines.push(
      `Listed are the most used tools; find_tools searches every group, and ${config.readOnly ? 'call_read_tool runs what it finds' : 'call_read_tool and call_write_tool run the reads and writes it finds'}.`,
    );
  for (const guide of guides) lines.push(`Read ${guide.uri} (${guide.title.toLowerCase()}) for ids, limits and workflows.`);
  if (config.readOnly) lines.push('Read-only: tools that change data are not available.');
  else if (config.confirm !== 'none') lines.push(`${config.confirm === 'writes' ? 'Tools that change data' : 'Deletes and outbound calls'} ask the user to confirm before anything is sent.`);
  return lines.join('\n');
}

/** What every session of one configuration shares: which tools it reaches and lists, and the instructions. */
export interface SessionSurface extends Pick<Session, 'toolsByName' | 'catalogByName'> {
  /** The listed tools (their views are the ones served). */
  listed: ToolDefinition[];
  instructions: string;
}

const surfaces = new WeakMap<ToolGroup[], WeakMap<Surface & Pick<Config, 'confirm'>, SessionSurface>>();

/** The session surface of a configuration, computed once: HTTP builds a server per session, or per request when stateless. */
export function sessionSurface(catalog: ToolGroup[], config: Surface & Pick<Config, 'confirm'>): SessionSurface {
  let byConfig = surfaces.get(catalog);
  if (!byConfig) surfaces.set(catalog, (byConfig = new WeakMap()));
  let surface = byConfig.get(config);
  if (!surface) {
    surface = {
      toolsByName: new Map(reachableTools(catalog, config).flatMap((tool) => namesOf(tool).map((name) => [name, tool] as const))),
      catalogByName: new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool])),
      listed: selectTools(catalog, config),
      instructions: serverInstructions(catalog, config),
    };
    byConfig.set(config, surface);
  }
  return surface;
}

/** What server_info says of a session. */
export function sessionInfo(session: Pick<Session, 'options' | 'server' | 'protocolVersion'>, request: Extra['requestInfo']): ServerInfo {
  const { config, catalog } = session.options;
  const elicits = sessionElicits(session);
  // A stateless HTTP session saw no initialize: every request after one names the version agreed in a header.
  const header = request?.headers['mcp-protocol-version'];
  return {
    name: SERVER_NAME,
    version: SERVER_VERSION,
    catalogHash: catalogHash(catalog, () => everyToolEntry(catalog)),
    toolsets: config.toolsets,
    tools: toolListing(catalog, config, elicits).map((tool) => tool.name),
    confirm: config.confirm,
    confirmBy: elicits ? 'elicitation' : 'token',
    readOnly: config.readOnly,
    mirror: config.mirror,
    protocolVersion: session.protocolVersion ?? (typeof header === 'string' ? header : undefined),
  };
}
