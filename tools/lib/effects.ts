import type { PreviewContext } from '../../src/engine/define.js';
import { records } from './records.js';
import { differs } from './diff.js';

/**
 * What previews share: reads of the workspace's folders, agents and articles, their names as the
 * user reads them, and the lines of a field update. Every reader returns what it could read and a
 * line saying what it could not.
 */

export type Item = Record<string, unknown>;

export interface Lookup {
  byId: Map<string, Item>;
  /** Set when the read failed: one line for the preview. */
  failed?: string;
}

/** Reads a list route and indexes it by id; `what` names it in the failure line. */
export async function lookup(context: PreviewContext, toolName: string, input: Item, what: string): Promise<Lookup> {
  const read = await context.read(toolName, input);
  if ('failed' in read) return { byId: new Map(), failed: `Could not read ${what} (${read.failed}).` };
  return { byId: new Map(records(read.value).map((item) => [String(item.id), item])) };
}

export const readFolders = (context: PreviewContext) => lookup(context, 'list_folders', {}, 'the folders');
export const readAgents = (context: PreviewContext) => lookup(context, 'list_agents', {}, 'the agents');
export const readArticles = (context: PreviewContext, articleIds: string[]) => lookup(context, 'get_articles', { articleIds }, 'the article(s)');

/** `"Name" (id)`, or the bare id with a note when the id is not in the lookup. */
export function named(context: PreviewContext, items: Lookup, id: unknown): string {
  const item = items.byId.get(String(id));
  if (!item) return items.failed ? String(id) : `${String(id)} (not found)`;
  return `${context.quote(item.name)} (${String(id)})`;
}

/** Agents that answer from a folder: those assigned to it or to any folder above it. */
export function agentsOfFolder(folders: Lookup, folderId: unknown): string[] {
  const agents = new Set<string>();
  const seen = new Set<string>();
  let current = folders.byId.get(String(folderId));
  while (current && !seen.has(String(current.id))) {
    seen.add(String(current.id));
    for (const botId of Array.isArray(current.botIds) ? current.botIds : []) agents.add(String(botId));
    current = typeof current.parentFolderId === 'string' ? folders.byId.get(current.parentFolderId) : undefined;
  }
  return [...agents];
}

/** Names of agents as one phrase: `"Store assistant" (bot_1), "Email support" (bot_2)`, or `no agent`. */
export function agentNames(context: PreviewContext, agents: Lookup, botIds: string[]): string {
  return botIds.length
    ? [...botIds]
        .sort()
        .map((id) => named(context, agents, id))
        .join(', ')
    : 'no agent';
}

/** `A -> B` for the agents answering from something before and after a move, or `A (unchanged)`. */
export function agentsChange(context: PreviewContext, agents: Lookup, before: string[], after: string[]): string {
  const same = before.length === after.length && before.every((id) => after.includes(id));
  return same ? `${agentNames(context, agents, before)} (unchanged)` : `${agentNames(context, agents, before)} -> ${agentNames(context, agents, after)}`;
}

/** Failure lines of the lookups, so a preview says what it could not read. */
export function unreadable(...lookups: Lookup[]): string[] {
  return lookups.flatMap((item) => (item.failed ? [item.failed] : []));
}

/** A value as the user reads it: flags, numbers and null as they are, any text or structure through `text`. */
function shown(text: (value: unknown) => string, value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return String(value);
  return text(typeof value === 'string' ? value : JSON.stringify(value));
}

/**
 * The fields an update sets, against the record as the list route shows it: `field: now -> new`
 * for each that changes, the new value where the list route does not show the field (these lines
 * in one envelope), and the fields given that keep their value, counted in one line.
 */
export function fieldUpdates(context: PreviewContext, current: Item, given: Item, listTool: string): string[] {
  const same: string[] = [];
  const changes = context.quote.block((text) =>
    Object.entries(given).flatMap(([field, value]) => {
      if (value === undefined) return [];
      if (!Object.hasOwn(current, field)) return [`${field}: set to ${shown(text, value)} (${listTool} does not show its current value)`];
      if (differs(current[field], value)) return [`${field}: ${shown(text, current[field])} -> ${shown(text, value)}`];
      same.push(field);
      return [];
    }),
  );
  const lines = changes.length ? [entryWithLines('What it writes:', changes)] : ['No field changes: every value given equals the current one.'];
  if (same.length) lines.push(`Unchanged (same value as now): ${same.join(', ')}.`);
  return lines;
}

/** A preview entry of several lines: its heading, then the lines indented under the entry's dash. */
export function entryWithLines(heading: string, lines: string[]): string {
  return [heading, ...lines].join('\n  ');
}
