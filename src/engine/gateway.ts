import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CatalogTool, ToolDefinition, ToolGroup } from './define.js';
import { validationResult } from './errors.js';
import { coerceToSchema, formatIssues, objectShape } from './inputs.js';
import { rankTools } from './ranking.js';
import { jsonSchemaOf } from './schema.js';

/**
 * The gateway of the core surface: `find_tools` ranks catalog tools for a request and shows their
 * input schemas; `call_read_tool` runs one that only reads, `call_write_tool` one that changes data
 * (the Claude directory's rule: reads and writes are separate tools). `call_tool`, which ran both,
 * is no longer listed but still answers, by its target's scope, for the clients and skills that
 * name it (names are contract, design §17). The server routes each into the very pipeline a listed
 * tool goes through, so this module only parses, ranks and describes.
 */
export const FIND_TOOLS = 'find_tools';
export const CALL_READ_TOOL = 'call_read_tool';
export const CALL_WRITE_TOOL = 'call_write_tool';
/** The one gateway that ran reads and writes alike: unlisted, kept as an alias. */
export const CALL_TOOL = 'call_tool';

export type GatewayRunner = typeof CALL_READ_TOOL | typeof CALL_WRITE_TOOL | typeof CALL_TOOL;
export const GATEWAY_RUNNERS: readonly string[] = [CALL_READ_TOOL, CALL_WRITE_TOOL, CALL_TOOL];

const MATCHES_SHOWN = 5;

const findToolsSchemas = new WeakMap<ToolGroup[], ReturnType<typeof findToolsInput>>();

/** find_tools' input for a catalog: built once, for the listing and for every call alike. */
function findToolsSchema(catalog: ToolGroup[]) {
  let schema = findToolsSchemas.get(catalog);
  if (!schema) findToolsSchemas.set(catalog, (schema = findToolsInput(groupNames(catalog))));
  return schema;
}

function findToolsInput(groups: [string, ...string[]]) {
  return z
    .object({
      query: z.string().trim().min(1, 'must not be empty').describe('What you want to do, in plain words'),
      group: z.enum(groups).optional(),
    })
    .strict();
}

const callInput = z
  .object({
    name: z.string().min(1, 'must name a tool (find_tools lists them)'),
    arguments: z.record(z.unknown()).optional().describe("The tool's input, as find_tools shows it"),
  })
  .strict();

const gatewayListings = new WeakMap<ToolGroup[], Tool[]>();

/** The gateway as a session lists it: in read-only mode, nothing that runs writes. */
export function gatewayListing(catalog: ToolGroup[], readOnly: boolean): Tool[] {
  let listing = gatewayListings.get(catalog);
  if (!listing) gatewayListings.set(catalog, (listing = buildGatewayListing(catalog)));
  return readOnly ? listing.filter((tool) => tool.name !== CALL_WRITE_TOOL) : listing;
}

function buildGatewayListing(catalog: ToolGroup[]): Tool[] {
  const tools = catalog.flatMap((group) => group.tools);
  const inputSchema = jsonSchemaOf(callInput, 'input') as Tool['inputSchema'];
  return [
    {
      name: FIND_TOOLS,
      title: 'Find tools',
      description: 'Searches the whole tool catalog (beyond the tools listed here) for a task described in plain words; returns the best matches with their scope and input schemas.',
      inputSchema: jsonSchemaOf(findToolsSchema(catalog), 'input') as Tool['inputSchema'],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    {
      name: CALL_READ_TOOL,
      title: 'Run a read tool',
      description: 'Runs a catalog tool that only reads (scope read), by the name and input find_tools gives: same validation and limits as a listed tool.',
      inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: tools.some((tool) => tool.scope === 'read' && tool.openWorld) },
      execution: { taskSupport: 'optional' },
    },
    {
      name: CALL_WRITE_TOOL,
      title: 'Run a write tool',
      description: 'Runs a catalog tool that changes data (scope write), by the name and input find_tools gives: same validation, confirmation and limits as a listed tool.',
      inputSchema,
      // The target decides what happens; the hints describe the worst a call may do.
      annotations: {
        readOnlyHint: false,
        destructiveHint: tools.some((tool) => tool.scope === 'write' && tool.destructive),
        idempotentHint: false,
        openWorldHint: tools.some((tool) => tool.scope === 'write' && tool.openWorld),
      },
      execution: { taskSupport: 'optional' },
    },
  ];
}

function groupNames(catalog: ToolGroup[]): [string, ...string[]] {
  return catalog.map((group) => group.name) as [string, ...string[]];
}

type GatewayCall = { ok: true; name: string; arguments: Record<string, unknown> } | { ok: false; result: CallToolResult };

/** A gateway runner's arguments: the target's name and input, or the validation error to answer with, naming the runner called. */
export function parseGatewayCall(runner: GatewayRunner, rawArgs: Record<string, unknown>): GatewayCall {
  const parsed = callInput.safeParse(coerceToSchema(callInput, rawArgs));
  if (!parsed.success) return { ok: false, result: validationResult({ name: runner }, formatIssues(parsed.error.issues)) };
  return { ok: true, name: parsed.data.name, arguments: parsed.data.arguments ?? {} };
}

/**
 * Why a runner refuses a tool of the other scope, or undefined when it runs it: call_read_tool
 * sends nothing for a tool that changes data, and call_write_tool runs no read. `call_tool` runs
 * either.
 */
export function scopeRefusal(runner: GatewayRunner, tool: ToolDefinition): string | undefined {
  if (runner === CALL_READ_TOOL && tool.scope !== 'read') return `${CALL_READ_TOOL} runs only tools that read, and ${tool.name} changes data (call_write_tool runs it); nothing was sent.`;
  if (runner === CALL_WRITE_TOOL && tool.scope === 'read') return `${CALL_WRITE_TOOL} runs only tools that change data, and ${tool.name} only reads (call_read_tool runs it); nothing was sent.`;
  return undefined;
}

/** `find_tools`: the reachable tools ranked for the query, each as this session lists it. */
export function findTools(rawArgs: Record<string, unknown>, catalog: ToolGroup[], reachable: CatalogTool[], entryOf: (tool: ToolDefinition) => Tool, readOnly: boolean): CallToolResult {
  const schema = findToolsSchema(catalog);
  const parsed = schema.safeParse(coerceToSchema(schema, rawArgs));
  if (!parsed.success) return validationResult({ name: FIND_TOOLS }, formatIssues(parsed.error.issues));
  const { query, group } = parsed.data;
  const candidates = group ? reachable.filter((tool) => tool.group === group) : reachable;
  const matches = rankTools(catalog, query, candidates).slice(0, MATCHES_SHOWN);
  const tools = matches.map((tool) => {
    const entry = entryOf(tool);
    const needs = companionsOf(tool, reachable);
    return { name: tool.name, group: tool.group, scope: tool.scope, description: tool.description, ...(needs.length ? { needs } : {}), inputSchema: entry.inputSchema };
  });
  if (tools.length === 0) {
    const groups = catalog.map((candidate) => `- ${candidate.name}: ${candidate.description}`).join('\n');
    return { content: [{ type: 'text', text: `No tool matches "${query}"${group ? ` in ${group}` : ''}. Try other words or one of the groups:\n${groups}` }], structuredContent: { tools } };
  }
  const text = tools
    .map((tool) => `## ${tool.name} (${tool.group}, ${tool.scope})\n${tool.description}\n${tool.needs ? `ids from: ${tool.needs.join(', ')}\n` : ''}input: ${JSON.stringify(tool.inputSchema)}`)
    .join('\n\n');
  const runners = readOnly ? `${CALL_READ_TOOL} runs one, as {name, arguments}.` : `${CALL_READ_TOOL} runs a read, ${CALL_WRITE_TOOL} a write, each as {name, arguments}.`;
  return { content: [{ type: 'text', text: `${text}\n\n${runners}` }], structuredContent: { tools } };
}

/** The reachable tools whose results give the ids a tool's input takes (`gives`), in the order of its fields. */
function companionsOf(tool: ToolDefinition, reachable: ToolDefinition[]): string[] {
  const needs = new Set<string>();
  for (const field of Object.keys(objectShape(tool.input))) {
    for (const giver of reachable) if (giver !== tool && giver.gives?.includes(field)) needs.add(giver.name);
  }
  return [...needs];
}
