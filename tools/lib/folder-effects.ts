import type { PreviewContext } from '../../src/engine/define.js';
import { agentNames, agentsChange, agentsOfFolder, fieldUpdates, lookup, named, readAgents, readFolders, unreadable, type Item, type Lookup } from './effects.js';

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

export async function previewUpdateFolder(input: { folderId: string } & Item, context: PreviewContext): Promise<string[]> {
  const folders = await readFolders(context);
  if (folders.failed) return [folders.failed];
  const folder = folders.byId.get(input.folderId);
  if (!folder) return [`No folder ${input.folderId} exists in this workspace: the API will answer 404 and nothing changes.`];
  const { folderId: _id, ...given } = input;
  return [`Updates folder ${named(context, folders, input.folderId)} in ${placeOf(context, folders, folder.parentFolderId)}:`, ...fieldUpdates(context, folder, given, 'list_folders')];
}
