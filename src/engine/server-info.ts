import { createHash } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolGroup } from './define.js';
import { validationResult } from './errors.js';
import { fieldPath } from './inputs.js';
import { jsonSchemaOf } from './schema.js';

/**
 * `server_info` (design §17), listed in every toolset: which svc-mcp answers and how this session
 * is set up, so a user, a host or a support engineer can check a tool allowlist or a report
 * against the server without reading its configuration. It reads no API.
 */
export const SERVER_INFO = 'server_info';

const input = z.object({}).strict();

const output = z
  .object({
    name: z.string(),
    version: z.string(),
    catalogHash: z.string().describe('sha256 of every tool name, description, schema and hint'),
    toolsets: z.union([z.literal('all'), z.array(z.string())]),
    tools: z.array(z.string()).describe('Listed to this session'),
    confirm: z.enum(['writes', 'destructive', 'none']),
    confirmBy: z.enum(['elicitation', 'token']),
    readOnly: z.boolean(),
    mirror: z.enum(['memory', 'disk', 'off']),
    protocolVersion: z.string().optional(),
  })
  .passthrough();

export type ServerInfo = z.infer<typeof output>;

let listed: Tool | undefined;

export function serverInfoListing(): Tool {
  listed ??= {
    name: SERVER_INFO,
    title: 'Server info',
    description: "Version, catalog hash and this session's setup: toolsets, tools listed, confirmation, read-only, mirror and MCP protocol version. For checking an allowlist or reporting a problem.",
    inputSchema: jsonSchemaOf(input, 'input') as Tool['inputSchema'],
    outputSchema: jsonSchemaOf(output, 'output') as Tool['outputSchema'],
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
  return listed;
}

const hashes = new WeakMap<ToolGroup[], string>();

/**
 * The catalog's hash: sha256 of every tool a client may be offered, each as a client that shows
 * everything sees it (name, title, description, input and output schemas, hints), sorted by
 * name. Any change of a tool's contract changes it; a session's configuration does not.
 */
export function catalogHash(catalog: ToolGroup[], entries: () => Tool[]): string {
  let hash = hashes.get(catalog);
  if (!hash) {
    const tools = [...entries()].sort((a, b) => a.name.localeCompare(b.name));
    hash = `sha256:${createHash('sha256').update(JSON.stringify(tools)).digest('hex').slice(0, 16)}`;
    hashes.set(catalog, hash);
  }
  return hash;
}

/** server_info's answer, or the refusal of arguments it does not take, each named. */
export function serverInfoResult(rawArgs: Record<string, unknown>, info: () => ServerInfo): CallToolResult {
  const unknown = Object.keys(rawArgs);
  if (unknown.length) return validationResult({ name: SERVER_INFO }, unknown.map((field) => `- ${fieldPath([field])}: unknown field (${SERVER_INFO} takes no input)`).join('\n'));
  const facts = info();
  const lines = [
    `${facts.name} ${facts.version}, catalog ${facts.catalogHash}, MCP protocol ${facts.protocolVersion ?? 'not agreed yet'}.`,
    `Toolsets: ${facts.toolsets === 'all' ? 'all' : facts.toolsets.join(', ')}; ${facts.tools.length} tools listed: ${facts.tools.join(', ')}.`,
    `Confirmation: ${facts.confirm}, by ${facts.confirmBy}; read-only: ${facts.readOnly ? 'yes' : 'no'}; mirror: ${facts.mirror}.`,
  ];
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: facts };
}
