import { loadConfig } from '../../src/config.js';
import { needsConfirmation } from '../../src/engine/confirm.js';
import { selectTools } from '../../src/engine/server.js';
import { toolListEntry } from '../../src/engine/schema.js';
import { catalog } from '../../tools/index.js';

/** `tools/list` under the default configuration, sorted by name: what the snapshot records. */
export function defaultToolList() {
  const config = loadConfig(['--sandbox'], {});
  return selectTools(catalog, config)
    .map((tool) => toolListEntry(tool, needsConfirmation(tool, config.confirm)))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The manifest's tool list: every catalog tool with its description. */
export function manifestTools() {
  return catalog.flatMap((group) => group.tools).map((tool) => ({ name: tool.name, description: tool.description }));
}

/** The README's tool table, one row per tool, grouped as the catalog is. */
export function readmeToolTable(): string {
  const rows = ['| group | tool | kind | what it does |', '|---|---|---|---|'];
  for (const group of catalog) {
    for (const tool of group.tools) {
      const kind = tool.scope === 'read' ? 'read' : tool.destructive ? 'destructive write' : tool.openWorld ? 'write, outbound' : 'write';
      rows.push(`| ${group.name} | \`${tool.name}\` | ${kind} | ${tool.description.replaceAll('|', '\\|')} |`);
    }
  }
  return rows.join('\n');
}
