/**
 * Folders and agent-folder assignments. Folders form a tree (`parentFolderId`); an agent
 * answers from the live articles of the folders assigned to it and their subfolders
 * (state.ts `visibleFolderIds`), so assignment decides what generate answer retrieves.
 */
import { badRequest } from '../errors.js';
import { newId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { findInWorkspace, folderBotIds, folderSubtree, folderView, iso, requireInWorkspace, type SandboxState, type Workspace } from '../state.js';
import type { Folder } from '../types.js';
import { checkOne, Violations, objectBody, requireString } from '../validate.js';

/** A folder id given in a body: 403 for another workspace's folder, 400 when it exists nowhere. */
export function existingFolder(state: SandboxState, ws: Workspace, name: string, id: unknown): Folder {
  if (typeof id !== 'string' || id.trim() === '') throw badRequest([`${name} should not be empty`, `${name} must be a string`]);
  const folder = findInWorkspace(state, ws, 'folders', id);
  if (!folder) throw badRequest([`${name} must be the id of a folder in this workspace`]);
  return folder;
}

/** An optional folder id given in a body (absent or null: none), checked as existingFolder does. */
export function optionalFolder(req: RouteRequest, body: Record<string, unknown>, name: string): string | null {
  if (body[name] === undefined || body[name] === null) return null;
  return existingFolder(req.state, req.workspace, name, body[name]).id;
}

function byCreation(a: Folder, b: Folder): number {
  return a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

export function listFolders(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const botId = req.query.get('botId');
  let folders = [...ws.folders.values()];
  if (botId !== null && botId.trim() !== '') {
    findInWorkspace(state, ws, 'bots', botId); // 403 for another workspace's agent
    const visible = new Set<string>();
    for (const j of ws.botFolderJunctions.values()) {
      if (j.botId === botId) for (const id of folderSubtree(ws, j.folderId)) visible.add(id);
    }
    folders = folders.filter((f) => visible.has(f.id));
  }
  return { body: folders.sort(byCreation).map((f) => folderView(ws, f)) };
}

function folderOr404(req: RouteRequest): Folder {
  return requireInWorkspace(req.state, req.workspace, 'folders', req.params.id, `Folder ${req.params.id} not found`);
}

export function createFolder(req: RouteRequest) {
  const ws = req.workspace;
  const body = objectBody(req.body);
  const name = checkOne((v) => requireString(v, 'name', body.name));
  const parentFolderId = optionalFolder(req, body, 'parentFolderId');
  const at = iso(req.now);
  const folder: Folder = { id: newId(), companyId: ws.id, name: name!.trim(), parentFolderId, createdAt: at, updatedAt: at };
  ws.folders.set(folder.id, folder);
  return { status: 201, body: folderView(ws, folder) };
}

export function updateFolder(req: RouteRequest) {
  const folder = folderOr404(req);
  const body = objectBody(req.body);
  const v = new Violations();
  if (body.name !== undefined) {
    const name = requireString(v, 'name', body.name);
    v.throwIfAny();
    folder.name = name!.trim();
  }
  folder.updatedAt = iso(req.now);
  return { body: folderView(req.workspace, folder) };
}

export function moveFolder(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const folder = folderOr404(req);
  const body = objectBody(req.body);
  if (!('parentFolderId' in body)) throw badRequest(['parentFolderId must be a folder id, or null for the top level']);
  const parent = body.parentFolderId === null ? null : existingFolder(state, ws, 'parentFolderId', body.parentFolderId);
  if (parent && folderSubtree(ws, folder.id).has(parent.id)) {
    throw badRequest(['a folder cannot be moved into itself or one of its subfolders']);
  }
  folder.parentFolderId = parent?.id ?? null;
  folder.updatedAt = iso(req.now);
  return { body: folderView(ws, folder) };
}

export function deleteFolder(req: RouteRequest) {
  const ws = req.workspace;
  const folder = folderOr404(req);
  const articles = [...ws.articles.values()].filter((a) => a.parentFolderId === folder.id).length;
  const subfolders = [...ws.folders.values()].filter((f) => f.parentFolderId === folder.id).length;
  if (articles || subfolders) {
    throw badRequest([`folder is not empty (${articles} articles, ${subfolders} subfolders): move or delete them first`]);
  }
  ws.folders.delete(folder.id);
  for (const [id, j] of ws.botFolderJunctions) if (j.folderId === folder.id) ws.botFolderJunctions.delete(id);
  return { body: { success: true } };
}

export function assignFolders(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const body = objectBody(req.body);
  const v = new Violations();
  const botId = requireString(v, 'botId', body.botId);
  if (!Array.isArray(body.folderIds) || body.folderIds.length === 0) v.add('folderIds should not be empty');
  else if (body.folderIds.some((id) => typeof id !== 'string' || id.trim() === '')) v.add('each value in folderIds must be a non-empty string');
  v.throwIfAny();
  const bot = findInWorkspace(state, ws, 'bots', botId!);
  if (!bot) throw badRequest(['botId must be the id of an agent in this workspace']);
  const folders = (body.folderIds as string[]).map((id) => existingFolder(state, ws, 'folderIds', id));
  const added = [];
  for (const folder of folders) {
    if (folderBotIds(ws, folder.id).includes(bot.id)) continue;
    const junction = { id: newId(), companyId: ws.id, botId: bot.id, folderId: folder.id, createdAt: iso(req.now) };
    ws.botFolderJunctions.set(junction.id, junction);
    added.push(junction);
  }
  const assigned = [...ws.botFolderJunctions.values()].filter((j) => j.botId === bot.id).map((j) => j.folderId);
  return { body: { botId: bot.id, folderIds: [...new Set(assigned)], added } };
}
