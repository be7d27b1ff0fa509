import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config.js';
import type { ToolDefinition, ToolGroup } from './define.js';
import { jsonSchemaOf } from './schema.js';

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

/** The four hints every tool carries; read-only mode is derived from `readOnlyHint`. */
export function annotationsOf(tool: ToolDefinition): NonNullable<Tool['annotations']> {
  return {
    title: tool.title,
    readOnlyHint: tool.scope === 'read',
    destructiveHint: Boolean(tool.destructive),
    idempotentHint: tool.scope === 'read' || Boolean(tool.idempotent),
    openWorldHint: Boolean(tool.openWorld),
  };
}

const listings = new WeakMap<ToolDefinition, Map<boolean, Tool>>();

/**
 * A tool as `tools/list` shows it: the catalog entry plus the engine's own `view` and `confirm`
 * options. Computed once per definition, since HTTP mode builds a server per session or request.
 */
export function toolListEntry(tool: ToolDefinition, confirmable: boolean): Tool {
  let byConfirm = listings.get(tool);
  if (!byConfirm) listings.set(tool, (byConfirm = new Map()));
  let entry = byConfirm.get(confirmable);
  if (!entry) byConfirm.set(confirmable, (entry = buildListEntry(tool, confirmable)));
  return entry;
}

function buildListEntry(tool: ToolDefinition, confirmable: boolean): Tool {
  const inputSchema = jsonSchemaOf(tool.input, 'input');
  inputSchema.type = 'object';
  inputSchema.properties = { ...inputSchema.properties };
  if (tool.list) {
    inputSchema.properties.view = { type: 'string', enum: ['compact', 'full'], description: 'compact (default): key fields; full: every field.' };
  }
  if (confirmable) {
    inputSchema.properties.confirm = { type: 'boolean', description: 'Send after the user approved the preview (clients without elicitation).' };
  }
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchema as Tool['inputSchema'],
    ...(tool.output ? { outputSchema: jsonSchemaOf(tool.output, 'output') as Tool['outputSchema'] } : {}),
    annotations: annotationsOf(tool),
    ...(tool.taskSupport ? { execution: { taskSupport: tool.taskSupport } } : {}),
  };
}
