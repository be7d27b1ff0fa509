import type { PreviewContext } from '../../src/engine/define.js';
import { isRecord } from '../../src/engine/output.js';
import { records } from './common.js';
import { differs } from './diff.js';

/**
 * Reads that previews share: the workspace's folders, agents and articles, named for the user.
 * Every reader returns what it could read and a line saying what it could not.
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

/** Every folder below one, at any depth. */
function subfoldersOf(folders: Lookup, folderId: string): Item[] {
  const below: Item[] = [];
  const queue = [folderId];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const folder of folders.byId.values()) {
      if (folder.parentFolderId === parent && !below.includes(folder)) {
        below.push(folder);
        queue.push(String(folder.id));
      }
    }
  }
  return below;
}

/** Names of agents as one phrase: `"Store assistant" (bot_1), "Email support" (bot_2)`, or `no agent`. */
export function agentNames(context: PreviewContext, agents: Lookup, botIds: string[]): string {
  return botIds.length ? [...botIds].sort().map((id) => named(context, agents, id)).join(', ') : 'no agent';
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

/** A field of a write's response as text, for `done` lines: `?` when the response lacks it. */
export function fieldOf(data: unknown, name: string): string {
  const value = isRecord(data) ? data[name] : undefined;
  return value === undefined || value === null ? '?' : String(value);
}

/** `"Name" (id)` of a folder's parent, or `the top level`. */
function placeOf(context: PreviewContext, folders: Lookup, parentId: unknown): string {
  return typeof parentId === 'string' ? `folder ${named(context, folders, parentId)}` : 'the top level';
}

function listed(context: PreviewContext, items: Item[], field: string, max = 5): string {
  const shown = items.slice(0, max).map((item) => `${context.quote(item[field])} (${String(item.id)})`);
  return items.length > max ? `${shown.join(', ')} and ${items.length - max} more` : shown.join(', ');
}

export async function previewDeleteFolder(input: { folderId: string }, context: PreviewContext): Promise<string[]> {
  const [folders, agents, live, drafts] = await Promise.all([
    readFolders(context),
    readAgents(context),
    lookup(context, 'list_articles', { type: 'live' }, 'the live articles'),
    lookup(context, 'list_articles', { type: 'draft' }, 'the drafts'),
  ]);
  if (folders.failed) return [folders.failed];
  const folder = folders.byId.get(input.folderId);
  if (!folder) return [`No folder ${input.folderId} exists in this workspace: the API will answer 404 and nothing is deleted.`];
  const botIds = Array.isArray(folder.botIds) ? folder.botIds.map(String) : [];
  const subfolders = [...folders.byId.values()].filter((item) => item.parentFolderId === input.folderId);
  const articles = [...live.byId.values(), ...drafts.byId.values()].filter((item) => item.parentFolderId === input.folderId);
  const lines = [
    `Deletes folder ${named(context, folders, input.folderId)} in ${placeOf(context, folders, folder.parentFolderId)}. This is permanent: no route restores it.`,
    botIds.length ? `Its assignments go with it: ${agentNames(context, agents, botIds)} stop answering from it.` : 'No agent is assigned to it.',
  ];
  if (articles.length || subfolders.length) {
    lines.push(
      `It still holds ${articles.length} article(s)${articles.length ? ` (${listed(context, articles, 'title')})` : ''} and ${subfolders.length} subfolder(s)${subfolders.length ? ` (${listed(context, subfolders, 'name')})` : ''}: the API refuses to delete a folder that is not empty (400). Move or delete them first (move_article, move_folder).`,
    );
  } else if (!live.failed && !drafts.failed) {
    lines.push('It is empty: no article or subfolder goes with it.');
  }
  return [...lines, ...unreadable(agents, live, drafts)];
}

export async function previewMoveFolder(input: { folderId: string; parentFolderId?: string | null }, context: PreviewContext): Promise<string[]> {
  const [folders, agents] = await Promise.all([readFolders(context), readAgents(context)]);
  if (folders.failed) return [folders.failed];
  const folder = folders.byId.get(input.folderId);
  if (!folder) return [`No folder ${input.folderId} exists in this workspace: the API will answer 404 and nothing moves.`];
  if (input.parentFolderId === undefined) return [`No parentFolderId given (an id, or null for the top level): folder ${named(context, folders, input.folderId)} stays where it is.`];
  const below = subfoldersOf(folders, input.folderId);
  const target = input.parentFolderId;
  const lines = [
    `Moves folder ${named(context, folders, input.folderId)}${below.length ? ` with its ${below.length} subfolder(s) and their articles` : ' with its articles'} from ${placeOf(context, folders, folder.parentFolderId)} to ${placeOf(context, folders, target)}.`,
  ];
  if (target !== null && (target === input.folderId || below.some((item) => item.id === target))) {
    lines.push('The target is the folder itself or one of its subfolders: the API refuses the move (400).');
  } else if (target !== null && !folders.byId.has(target)) {
    lines.push(`Folder ${target} does not exist in this workspace: the API refuses the move.`);
  } else {
    const own = Array.isArray(folder.botIds) ? folder.botIds.map(String) : [];
    const after = [...new Set([...own, ...(target === null ? [] : agentsOfFolder(folders, target))])];
    lines.push(`Agents answering from it: ${agentsChange(context, agents, agentsOfFolder(folders, input.folderId), after)}.`);
  }
  return [...lines, ...unreadable(agents)];
}

export async function previewAssignFolders(input: { botId?: string; folderIds?: string[] }, context: PreviewContext): Promise<string[]> {
  if (!input.botId || !input.folderIds?.length) return ['botId and folderIds are both needed: the API will refuse the call (400).'];
  const [folders, agents] = await Promise.all([readFolders(context), readAgents(context)]);
  const botId = input.botId;
  const lines = [`Agent ${named(context, agents, botId)} will answer from the live articles of these folders and their subfolders:`];
  const already = input.folderIds.filter((id) => agentsOfFolder(folders, id).includes(botId));
  const missing = folders.failed ? [] : input.folderIds.filter((id) => !folders.byId.has(id));
  const added = input.folderIds.filter((id) => !already.includes(id) && !missing.includes(id));
  if (added.length) lines.push(`newly: ${added.map((id) => named(context, folders, id)).join(', ')}`);
  if (already.length) lines.push(`already (no change): ${already.map((id) => named(context, folders, id)).join(', ')}`);
  if (missing.length) lines.push(`not folders of this workspace: ${missing.join(', ')}; the API refuses the call (400).`);
  if (!agents.failed && !agents.byId.has(botId)) lines.push(`Agent ${botId} does not exist in this workspace: the API refuses the call (400).`);
  return [...lines, 'Existing assignments are kept: this call adds only.', ...unreadable(agents, folders)];
}

export async function previewAssignAction(input: { toolId: string; botIds: string[]; channels?: string[] }, context: PreviewContext): Promise<string[]> {
  const [actions, agents] = await Promise.all([lookup(context, 'list_actions', {}, 'the actions and attributes'), readAgents(context)]);
  const action = actions.byId.get(input.toolId);
  if (!actions.failed && !action) return [`No action or attribute ${input.toolId} exists in this workspace: the API will answer 404 and nothing changes.`];
  const kind = action?.alwaysGet === true ? 'attribute' : action?.alwaysGet === false ? 'action' : 'action or attribute';
  const assigned = new Set(Array.isArray(action?.botIds) ? action.botIds.map(String) : []);
  const channels = input.channels?.length ? ` on ${input.channels.join(', ')}` : '';
  const lines = [`Assigns ${kind} ${named(context, actions, input.toolId)} to ${agentNames(context, agents, input.botIds)}${channels}.`];
  const already = input.botIds.filter((id) => assigned.has(id));
  if (already.length) lines.push(`Already assigned: ${agentNames(context, agents, already)}.`);
  if (kind === 'action') lines.push('It is an action: it runs only from a rule\'s tool node, so the assignment alone does not make agents call it.');
  if (kind === 'attribute') lines.push('It is an attribute: these agents fetch it at the start of every conversation.');
  return [...lines, ...unreadable(actions, agents)];
}

/** A value as the user reads it: flags, numbers and null as they are, any text or structure quoted. */
function shown(context: PreviewContext, value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return String(value);
  return context.quote(typeof value === 'string' ? value : JSON.stringify(value));
}

/**
 * The fields an update sets, against the record as the list route shows it: `field: now -> new`
 * for each that changes, the new value where the list route does not show the field, and the
 * fields given that keep their value, counted in one line.
 */
function fieldUpdates(context: PreviewContext, current: Item, given: Item, listTool: string): string[] {
  const lines: string[] = [];
  const same: string[] = [];
  for (const [field, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(current, field)) lines.push(`${field}: set to ${shown(context, value)} (${listTool} does not show its current value)`);
    else if (differs(current[field], value)) lines.push(`${field}: ${shown(context, current[field])} -> ${shown(context, value)}`);
    else same.push(field);
  }
  if (lines.length === 0) lines.push('No field changes: every value given equals the current one.');
  if (same.length) lines.push(`Unchanged (same value as now): ${same.join(', ')}.`);
  return lines;
}

export async function previewUpdateFolder(input: { folderId: string } & Item, context: PreviewContext): Promise<string[]> {
  const folders = await readFolders(context);
  if (folders.failed) return [folders.failed];
  const folder = folders.byId.get(input.folderId);
  if (!folder) return [`No folder ${input.folderId} exists in this workspace: the API will answer 404 and nothing changes.`];
  const { folderId: _id, ...given } = input;
  return [`Updates folder ${named(context, folders, input.folderId)} in ${placeOf(context, folders, folder.parentFolderId)}:`, ...fieldUpdates(context, folder, given, 'list_folders')];
}

/** Names of schema fields, for a line that says which fields a schema adds and drops. */
const fieldNames = (schema: unknown) => (Array.isArray(schema) ? schema.map((field) => String(isRecord(field) ? field.name : field)) : []);

export async function previewUpdateAction(input: { toolId: string; inputSchema?: unknown[]; outputSchema?: unknown[] } & Item, context: PreviewContext): Promise<string[]> {
  const actions = await lookup(context, 'list_actions', {}, 'the actions and attributes');
  if (actions.failed) return [actions.failed];
  const action = actions.byId.get(input.toolId);
  if (!action) return [`No action or attribute ${input.toolId} exists in this workspace: the API will answer 404 and nothing changes.`];
  const { toolId: _id, inputSchema, outputSchema, ...given } = input;
  const kind = action.alwaysGet === true ? 'attribute' : action.alwaysGet === false ? 'action' : 'action or attribute';
  const lines = [`Updates ${kind} ${named(context, actions, input.toolId)}:`];
  if (Object.values(given).some((value) => value !== undefined)) lines.push(...fieldUpdates(context, action, given, 'list_actions'));
  if (inputSchema) lines.push(`inputSchema: replaced by ${inputSchema.length} field(s)${inputSchema.length ? `: ${context.quote(fieldNames(inputSchema).join(', '))}` : ''} (list_actions does not show the current ones).`);
  if (outputSchema) {
    // The list route's `fields` are the output fields (their Visible to AI flag is the output field's sendToLlm).
    const now = fieldNames(action.fields);
    const next = fieldNames(outputSchema);
    const added = next.filter((name) => !now.includes(name));
    const dropped = now.filter((name) => !next.includes(name));
    const change = [added.length && `adds ${context.quote(added.join(', '))}`, dropped.length && `drops ${context.quote(dropped.join(', '))}`].filter(Boolean).join(', ');
    lines.push(`outputSchema: replaced by ${next.length} field(s); ${change || 'the same field names as now (their settings may change)'}.`);
  }
  if (lines.length === 1) lines.push('Nothing to change: no field given.');
  return lines;
}

/** How many items a response's array field holds, for `done` lines. */
export function countOf(data: unknown, name: string): number {
  const value = isRecord(data) ? data[name] : undefined;
  return Array.isArray(value) ? value.length : 0;
}
