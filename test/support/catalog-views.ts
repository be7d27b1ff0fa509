import { loadConfig } from '../../src/config.js';
import { needsConfirmation } from '../../src/engine/confirm.js';
import { selectTools, toolListEntry } from '../../src/engine/listing.js';
import { readFileSync } from 'node:fs';
import { catalog } from '../../tools/index.js';
import { CHOICES_PATH } from './paths.js';

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

/** The README's tool table, one row per tool, grouped as the catalog is, then the resources and prompts. */
export function readmeToolTable(): string {
  const rows = ['| group | tool | kind | what it does |', '|---|---|---|---|'];
  for (const group of catalog) {
    for (const tool of group.tools) {
      const kind = tool.scope === 'read' ? 'read' : tool.destructive ? 'destructive write' : tool.openWorld ? 'write, outbound' : 'write';
      rows.push(`| ${group.name} | \`${tool.name}\` | ${kind} | ${tool.description.replaceAll('|', '\\|')} |`);
    }
  }
  const resources = catalog.flatMap((group) => group.resources ?? []);
  const prompts = catalog.flatMap((group) => group.prompts ?? []);
  rows.push('', 'Resources (read-only context; templates complete ids where a list tool exists):', '');
  for (const resource of resources) rows.push(`- \`${resource.uri}\`: ${resource.description}`);
  rows.push('', 'Prompts:', '');
  for (const prompt of prompts) rows.push(`- \`${prompt.name}\`: ${prompt.description}`);
  return rows.join('\n');
}

/** The sandbox's choices for the README: CHOICES.md without its title, headings one level down. */
export function readmeSandboxChoices(): string {
  const text = readFileSync(CHOICES_PATH, 'utf8').replace(/^# .*\n+/, '');
  return text.replace(/^## /gm, '### ').trim();
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
