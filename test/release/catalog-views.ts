import { loadConfig, OPTIONS } from '../../src/config.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { gatewayListing } from '../../src/engine/gateway.js';
import { toolListing } from '../../src/engine/listing.js';
import { serverInfoListing } from '../../src/engine/server-info.js';
import { catalog } from '../../tools/index.js';

/** `tools/list` under the default configuration for a client without elicitation, sorted by name: what the snapshot records. */
export function defaultToolList() {
  return [...toolListing(catalog, loadConfig(['--sandbox'], {}), false)].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The manifest's tool list: what the one-click bundle lists (every catalog tool and server_info),
 * each with its description. The bundle carries no native engine, so it runs with the workspace
 * mirror off (its manifest sets SVC_MIRROR=off) and lists none of the tools that need it.
 */
export function manifestTools() {
  return toolListing(catalog, loadConfig(['--sandbox', '--mirror', 'off'], {}), false).map((tool) => ({ name: tool.name, description: tool.description }));
}

/**
 * The manifest's prompt list: each catalog prompt with its text as the server renders it, arguments
 * standing as the `${arguments.name}` placeholders of the MCPB format.
 */
export function manifestPrompts() {
  return catalog
    .flatMap((group) => group.prompts ?? [])
    .map((prompt) => ({
      name: prompt.name,
      description: prompt.description,
      arguments: prompt.arguments.map((argument) => argument.name),
      text: prompt.render(Object.fromEntries(prompt.arguments.map((argument) => [argument.name, `\${arguments.${argument.name}}`]))),
    }));
}

/** The README's tool table, one row per tool, grouped as the catalog is, then the resources and prompts. */
export function readmeToolTable(): string {
  const rows = ['| group | tool | kind | what it does |', '|---|---|---|---|'];
  for (const group of catalog) {
    for (const tool of group.tools) {
      const kind = tool.scope === 'read' ? 'read' : tool.destructive ? 'destructive write' : tool.openWorld ? 'write, outbound' : 'write';
      rows.push(`| ${group.name} | \`${tool.name}\` | ${kind} | ${tool.description.replaceAll('|', '\\|')} |`);
    }
  }
  const kindOf = (tool: Tool) => (tool.annotations?.readOnlyHint ? 'read' : 'write');
  for (const [where, tool] of [['every toolset', serverInfoListing()], ...gatewayListing(catalog, false).map((entry) => ['core', entry] as const)] as const) {
    rows.push(`| ${where} | \`${tool.name}\` | ${kindOf(tool)} | ${tool.description!.replaceAll('|', '\\|')} |`);
  }
  const resources = catalog.flatMap((group) => group.resources ?? []);
  const prompts = catalog.flatMap((group) => group.prompts ?? []);
  rows.push('', `Resources (read-only context; templates complete ids where a list tool lists them): ${resources.map((resource) => `\`${resource.uri}\``).join(', ')}.`);
  rows.push('', `Prompts: ${prompts.map((prompt) => `\`${prompt.name}\` (${prompt.description.replace(/\.$/, '')})`).join('; ')}.`);
  return rows.join('\n');
}

/** The README's configuration table, from the one table that drives the environment, the flags and --help. */
export function readmeConfigTable(): string {
  const rows = ['| variable | flag | meaning | default |', '|---|---|---|---|'];
  for (const option of OPTIONS) {
    const cell = (text: string) => text.replaceAll('|', '\\|');
    rows.push(`| \`${option.env}\` | \`${option.flag}\` | ${cell(option.help)} | ${cell(option.default ?? option.defaultText ?? '')} |`);
  }
  return rows.join('\n');
}

/** Replaces what stands between two marker lines. */
export function replaceBetween(text: string, start: string, end: string, body: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`markers ${start} / ${end} missing`);
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}

export function between(text: string, start: string, end: string): string {
  return text.slice(text.indexOf(start) + start.length, text.indexOf(end)).trim();
}
