import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolDefinition, ToolGroup } from './define.js';
import { validationResult } from './errors.js';
import { coerceToSchema, formatIssues, objectShape } from './inputs.js';
import { jsonSchemaOf } from './schema.js';

/**
 * The gateway of the core surface: `find_tools` ranks catalog tools for a request and shows their
 * input schemas; `call_tool` runs one of them. The server routes `call_tool` into the very
 * pipeline a listed tool goes through, so this module only parses, ranks and describes.
 */
export const FIND_TOOLS = 'find_tools';
export const CALL_TOOL = 'call_tool';

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

const callToolInput = z
  .object({
    name: z.string().min(1, 'must name a tool (find_tools lists them)'),
    arguments: z.record(z.unknown()).optional().describe('The tool\'s input, as find_tools shows it'),
  })
  .strict();

const gatewayListings = new WeakMap<ToolGroup[], Tool[]>();

export function gatewayListing(catalog: ToolGroup[]): Tool[] {
  let listing = gatewayListings.get(catalog);
  if (listing) return listing;
  listing = [
    {
      name: FIND_TOOLS,
      title: 'Find tools',
      description:
        'Searches the whole tool catalog (beyond the tools listed here) for a task described in plain words; returns the best matches with their input schemas. Run one with call_tool.',
      inputSchema: jsonSchemaOf(findToolsSchema(catalog), 'input') as Tool['inputSchema'],
      annotations: { title: 'Find tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      title: 'Call a tool',
      description:
        'Runs a catalog tool found with find_tools, by name with its arguments: same validation, confirmation and limits as a listed tool.',
      inputSchema: jsonSchemaOf(callToolInput, 'input') as Tool['inputSchema'],
      // The target decides what happens; the hints describe the worst a call may do.
      annotations: { title: 'Call a tool', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      execution: { taskSupport: 'optional' },
    },
  ];
  gatewayListings.set(catalog, listing);
  return listing;
}

function groupNames(catalog: ToolGroup[]): [string, ...string[]] {
  return catalog.map((group) => group.name) as [string, ...string[]];
}

type GatewayCall = { ok: true; name: string; arguments: Record<string, unknown> } | { ok: false; result: CallToolResult };

/** `call_tool` arguments: the target's name and input, or the validation error to answer with. */
export function parseGatewayCall(rawArgs: Record<string, unknown>): GatewayCall {
  const parsed = callToolInput.safeParse(coerceToSchema(callToolInput, rawArgs));
  if (!parsed.success) return { ok: false, result: validationResult({ name: CALL_TOOL }, formatIssues(parsed.error.issues)) };
  return { ok: true, name: parsed.data.name, arguments: parsed.data.arguments ?? {} };
}

/** `find_tools`: the reachable tools ranked for the query, each as this session lists it. */
export function findTools(
  rawArgs: Record<string, unknown>,
  catalog: ToolGroup[],
  reachable: ToolDefinition[],
  entryOf: (tool: ToolDefinition) => Tool,
): CallToolResult {
  const schema = findToolsSchema(catalog);
  const parsed = schema.safeParse(coerceToSchema(schema, rawArgs));
  if (!parsed.success) return validationResult({ name: FIND_TOOLS }, formatIssues(parsed.error.issues));
  const { query, group } = parsed.data;
  const candidates = group ? reachable.filter((tool) => tool.group === group) : reachable;
  const matches = rankTools(catalog, query, candidates).slice(0, MATCHES_SHOWN);
  const tools = matches.map((tool) => {
    const entry = entryOf(tool);
    return { name: tool.name, group: tool.group, scope: tool.scope, description: tool.description, inputSchema: entry.inputSchema };
  });
  if (tools.length === 0) {
    const groups = catalog.map((candidate) => `- ${candidate.name}: ${candidate.description}`).join('\n');
    return { content: [{ type: 'text', text: `No tool matches "${query}"${group ? ` in ${group}` : ''}. Try other words or one of the groups:\n${groups}` }], structuredContent: { tools } };
  }
  const text = tools
    .map((tool) => `## ${tool.name} (${tool.group}, ${tool.scope})\n${tool.description}\ninput: ${JSON.stringify(tool.inputSchema)}`)
    .join('\n\n');
  return { content: [{ type: 'text', text: `${text}\n\nRun one with call_tool {name, arguments}.` }], structuredContent: { tools } };
}

// --- ranking ---------------------------------------------------------------------------------

/** How much a query word counts by where it appears in a tool's definition. */
const FIELD_WEIGHTS = { name: 3, title: 2, group: 1.5, fields: 1, description: 1 } as const;
type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];

const STOPWORDS = new Set(
  'a an and any are as at be by can do does for from get give has have how i in is it its me my need of on one or our out show so some that the their them then there these this to up us want was we what when where which who why will with would you your'.split(
    ' ',
  ),
);

/** Words of a text: camelCase and snake_case split, lowercased, stopwords dropped, crudely stemmed. */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOPWORDS.has(word))
    .map(stem);
}

function stem(word: string): string {
  let base = word;
  if (base.length > 4 && base.endsWith('ies')) base = `${base.slice(0, -3)}y`;
  else if (base.length > 3 && base.endsWith('s') && !base.endsWith('ss')) base = base.slice(0, -1);
  if (base.length > 5 && base.endsWith('ing')) base = base.slice(0, -3);
  else if (base.length > 4 && base.endsWith('ed')) base = base.slice(0, -2);
  if (base.length > 3 && base.endsWith('e')) base = base.slice(0, -1);
  return base;
}

/** A tool's words, by the field they come from. */
type Indexed = Record<Field, Set<string>>;

interface Index {
  byTool: Map<ToolDefinition, Indexed>;
  /** Inverse document frequency: a word that few tools carry tells more. */
  idf: Map<string, number>;
}

const indexes = new WeakMap<ToolGroup[], Index>();

function indexOf(catalog: ToolGroup[]): Index {
  let index = indexes.get(catalog);
  if (index) return index;
  const byTool = new Map<ToolDefinition, Indexed>();
  const documentFrequency = new Map<string, number>();
  for (const tool of catalog.flatMap((group) => group.tools)) {
    const fields: Record<Field, Set<string>> = {
      name: new Set(wordsOf(tool.name)),
      title: new Set(wordsOf(tool.title)),
      group: new Set(wordsOf(tool.group)),
      fields: new Set(Object.keys(objectShape(tool.input)).flatMap(wordsOf)),
      description: new Set(wordsOf(tool.description)),
    };
    byTool.set(tool, fields);
    for (const word of new Set(Object.values(fields).flatMap((words) => [...words]))) {
      documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
  }
  const total = byTool.size;
  const idf = new Map([...documentFrequency].map(([word, count]) => [word, Math.log(1 + total / count)]));
  index = { byTool, idf };
  indexes.set(catalog, index);
  return index;
}

/** Tools ranked by how well their words cover the query's; tools that share no word are left out. */
export function rankTools(catalog: ToolGroup[], query: string, candidates: ToolDefinition[]): ToolDefinition[] {
  const index = indexOf(catalog);
  const words = [...new Set(wordsOf(query))];
  const scored = candidates.map((tool) => {
    const indexed = index.byTool.get(tool);
    let score = 0;
    for (const word of indexed ? words : []) {
      // A word counts once, at the weight of the best field it appears in.
      const weight = Math.max(0, ...FIELDS.map((field) => (indexed![field].has(word) ? FIELD_WEIGHTS[field] : 0)));
      score += weight * (index.idf.get(word) ?? 0);
    }
    return { tool, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((entry) => entry.tool);
}
