/**
 * The context cost of `tools/list` (design section 9): bytes/4 of what a client hands the model.
 * Shared by the budget test and the bench, so both print the same figures.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { toolListing } from '../../src/engine/listing.js';
import { catalog } from '../../tools/index.js';

/** Section 9's budgets, in tokens (bytes/4). */
export const BUDGETS = {
  /** Names, descriptions and input schemas of the whole catalog, client without elicitation: 8,000 with the tools of design §14, 15 and 17 (server_info among them). */
  catalog: 8_000,
  /** Output schemas, in total. */
  outputSchemas: 3_000,
  /** The whole tools/list payload. */
  payload: 12_000,
  /** Names, descriptions and input schemas under SVC_TOOLSETS=core (design §17, with explain_change and query_workspace to come). */
  core: 3_000,
} as const;

export function tokensOf(value: unknown): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(value)) / 4);
}

export interface ToolCost {
  name: string;
  /** Name, description and input schema. */
  surface: number;
  output: number;
  /** The whole entry: title, annotations and output schema included. */
  entry: number;
}

export interface ListingCost {
  tools: ToolCost[];
  surface: number;
  output: number;
  /** The whole `{tools: [...]}` payload. */
  payload: number;
}

export function costOf(tools: Tool[]): ListingCost {
  const costs = tools.map((tool) => ({
    name: tool.name,
    surface: tokensOf({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
    output: tool.outputSchema ? tokensOf(tool.outputSchema) : 0,
    entry: tokensOf(tool),
  }));
  return {
    tools: costs,
    surface: costs.reduce((sum, cost) => sum + cost.surface, 0),
    output: costs.reduce((sum, cost) => sum + cost.output, 0),
    payload: tokensOf({ tools }),
  };
}

/** `tools/list` as the engine lists it under the given environment, for a client with or without elicitation. */
export function listingUnder(env: Record<string, string> = {}, elicits = false): Tool[] {
  return toolListing(catalog, loadConfig(['--sandbox'], env), elicits);
}

/** The ten largest tools by the measure, one line each, for failure messages and the bench. */
export function largest(cost: ListingCost, measure: keyof Omit<ToolCost, 'name'> = 'surface', count = 10): string {
  return [...cost.tools]
    .sort((a, b) => b[measure] - a[measure])
    .slice(0, count)
    .map((tool) => `  ${tool.name.padEnd(30)} ${tool[measure]}`)
    .join('\n');
}

/** The bench's report: every budgeted figure against its budget, then the largest tools. */
export function contextCostReport(): string[] {
  const all = costOf(listingUnder());
  const core = costOf(listingUnder({ SVC_TOOLSETS: 'core' }));
  const outputsAnywhere = Math.max(all.output, costOf(listingUnder({ SVC_CONFIRM: 'none' })).output, costOf(listingUnder({}, true)).output);
  return [
    `tools/list context cost (bytes/4, client without elicitation), ${all.tools.length} tools:`,
    `  names + descriptions + input schemas: ${all.surface} tokens (budget ${BUDGETS.catalog})`,
    `  output schemas, largest of any configuration: ${outputsAnywhere} tokens (budget ${BUDGETS.outputSchemas})`,
    `  whole payload: ${all.payload} tokens (budget ${BUDGETS.payload})`,
    `  core surface (SVC_TOOLSETS=core), ${core.tools.length} tools: ${core.surface} tokens (budget ${BUDGETS.core})`,
    'largest tools (names + descriptions + input schemas):',
    largest(all),
  ];
}
