import { z } from 'zod';
import { defineGroup, defineTool } from '../src/engine/define.js';
import { idInput, idList } from '../src/engine/inputs.js';
import { countOf, defined, fieldOf } from './lib/records.js';
import { PASS_THROUGH } from './lib/inputs.js';
import { previewAssignFolders, previewDeleteFolder, previewMoveFolder, previewUpdateFolder } from './lib/folder-effects.js';
import { folderAnswered, folderDeleted, foldersAssigned } from './lib/mirror/writes.js';

const NOT_FOUND = 'no folder with this id in this workspace (list_folders lists folder ids)';

const listFolders = defineTool({
  name: 'list_folders',
  title: 'List folders',
  words: 'directories categories sections structure tree id browse overview available existing current',
  gives: ['folderId', 'folderIds', 'parentFolderId'],
  scope: 'read',
  description: "Shows the knowledge-base folder tree and each folder's agents; with botId, only what that agent answers from.",
  input: z.object({ botId: idInput().optional() }),
  route: { method: 'GET', path: '/v2/hc-folders/public', query: ['botId'], payloadNotShown: ['botId'] },
  list: {
    items: 'folders',
    compact: (item) => defined({ id: item.id, name: item.name, parentFolderId: item.parentFolderId, botIds: item.botIds }),
    more: "Pass botId to see one agent's folders.",
  },
});

const createFolder = defineTool({
  name: 'create_folder',
  title: 'Create a folder',
  words: 'new add make subfolder category section directory called named set up',
  scope: 'write',
  description: `Makes a knowledge-base folder, at the top or inside parentFolderId (list_folders). ${PASS_THROUGH}`,
  input: z.object({ name: z.string().optional(), parentFolderId: z.string().optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/hc-folders/public', body: 'rest', payloadNotShown: [] },
  keepMirror: folderAnswered,
  done: (data) => `Folder ${fieldOf(data, 'id')} created; next: assign_folders_to_agent so agents answer from it, create_article to fill it.`,
  errors: { 400: 'check name and that parentFolderId is a folder of this workspace (list_folders)' },
});

const updateFolder = defineTool({
  name: 'update_folder',
  title: 'Rename a folder',
  words: 'change name title typo call correct edit modify fix rename adjust directory category section',
  scope: 'write',
  idempotent: true,
  description: `Renames a folder (id from list_folders); to move it use move_folder. ${PASS_THROUGH}`,
  input: z.object({ folderId: idInput(), name: z.string().optional() }).passthrough(),
  route: { method: 'PUT', path: '/v2/hc-folders/{folderId}/public', body: 'rest', payloadNotShown: [] },
  keepMirror: folderAnswered,
  preview: previewUpdateFolder,
  done: (_data, input) => `Folder ${input.folderId} updated.`,
  errors: { 404: NOT_FOUND },
});

const moveFolder = defineTool({
  name: 'move_folder',
  title: 'Move a folder',
  words: 'nest put under inside beneath reparent top level relocate transfer into reorganize directory category section',
  scope: 'write',
  idempotent: true,
  description: `Moves a folder and its contents under another folder, or to the top with parentFolderId null. Ids from list_folders. ${PASS_THROUGH}`,
  input: z.object({ folderId: idInput(), parentFolderId: z.string().nullable().optional() }).passthrough(),
  route: { method: 'PUT', path: '/v2/hc-folders/{folderId}/move/public', body: 'rest', payloadNotShown: [] },
  keepMirror: folderAnswered,
  preview: previewMoveFolder,
  done: (_data, input) =>
    `Folder ${input.folderId} moved ${input.parentFolderId ? `under folder ${input.parentFolderId}` : 'to the top level'}; next: list_folders shows which agents answer from it now.`,
  errors: { 404: NOT_FOUND, 400: "the target must be a folder of this workspace outside the moved folder's own subtree" },
});

const deleteFolder = defineTool({
  name: 'delete_folder',
  title: 'Delete a folder',
  words: 'remove empty unused drop rid old category erase purge discard trash wipe destroy directory section',
  scope: 'write',
  destructive: true,
  idempotent: true,
  description: 'Permanently deletes an empty folder and its agent assignments. Id from list_folders.',
  input: z.object({ folderId: idInput() }),
  route: { method: 'DELETE', path: '/v2/hc-folders/{folderId}/public', payloadNotShown: [] },
  keepMirror: folderDeleted,
  preview: previewDeleteFolder,
  done: (_data, input) => `Folder ${input.folderId} deleted permanently with its agent assignments.`,
  errors: { 404: NOT_FOUND, 400: 'the folder still holds articles or subfolders' },
});

const assignFolders = defineTool({
  name: 'assign_folders_to_agent',
  title: 'Assign folders to an agent',
  words: 'access let use connect link answer knowledge enable give attach grant bot assistant chatbot directory category section',
  scope: 'write',
  idempotent: true,
  description: `Gives an agent knowledge: it answers from these folders' live articles, besides its current ones. Ids from list_agents and list_folders. ${PASS_THROUGH}`,
  input: z.object({ botId: idInput().optional(), folderIds: idList().optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/hc-bot-folder-junctions/public', body: 'rest', payloadNotShown: [] },
  keepMirror: foldersAssigned,
  preview: previewAssignFolders,
  done: (data) =>
    `Agent ${fieldOf(data, 'botId')} now answers from ${countOf(data, 'folderIds')} folder(s) (${countOf(data, 'added') || 'no new'} assignment(s) added); next: generate_answer to try it.`,
  errors: { 400: 'check that botId is an agent (list_agents) and folderIds are folders (list_folders) of this workspace' },
});

export const folders = defineGroup({
  name: 'folders',
  description: 'Knowledge folders and which agents answer from them.',
  tools: [listFolders, createFolder, updateFolder, moveFolder, deleteFolder, assignFolders],
  aliases: { directory: 'folder', category: 'folder', section: 'folder', subfolder: 'folder' },
  resources: [
    { name: 'folders', title: 'Folders', description: 'Every knowledge folder with its parent and assigned agents.', uri: 'svc://folders', tool: 'list_folders' },
    {
      name: 'agent-folders',
      title: 'Folders of an agent',
      description: 'The folders one agent answers from (assigned folders and their subfolders).',
      uri: 'svc://agents/{botId}/folders',
      tool: 'list_folders',
      complete: { botId: { tool: 'list_agents', pick: (item) => (typeof item.id === 'string' ? item.id : undefined) } },
    },
  ],
});
