import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import type { Change } from '../../../src/mirror/schema.js';
import { isRecord } from '../../../src/json.js';
import { conversationsGone, figureChanges, rowOf } from './ingest.js';
import { articleWritten } from './knowledge.js';
import { ACTIONS, ARTICLES, EVENTS, FOLDERS, USED_ARTICLES } from './tables.js';

/**
 * What each write through svc-mcp changes of what the mirror holds, applied at once (the engine's
 * `keepMirror` hook) so that the next answer from the mirror is true. Where the API's answer is the
 * record (articles, folders, actions), it is put as it is; where the write names what it changed
 * (feedback, assignments, deletes), the mirror's rows are changed the way the spec says the API
 * changes its own. Anything else a write changes is read again by the next sync.
 */

type Input = Record<string, unknown>;

/**
 * give_feedback: the event's rating, and the conversation's `resolved` recomputed as the spec's
 * state table says (from the agent's events rated thumbs-down: none gives null, all resolved gives
 * true, else false). Without `approved` the API changes nothing, and neither does the mirror.
 */
export async function feedbackGiven(_data: unknown, input: Input, mirror: WorkspaceMirror): Promise<Change[]> {
  if (input.approved === undefined) return [];
  const interactionId = String(input.interactionId);
  const eventId = String(input.eventId);
  const held = await heldEvents(mirror, interactionId);
  if (!held.some((event) => event.id === eventId)) return [];
  const events = held.map((event) => (event.id === eventId ? { ...event, approved: input.approved as boolean | null } : event));
  const negatives = events.filter((event) => event.role === 'svcbot' && event.approved === false);
  const resolved = negatives.length === 0 ? null : negatives.every((event) => event.resolved === true);
  return [
    { update: EVENTS.name, set: { approved: input.approved as boolean | null }, where: { id: eventId, interactionId } },
    { update: 'conversations', set: { resolved }, where: { id: interactionId } },
    ...figureChanges([{ id: interactionId, events }]),
  ];
}

/** A held conversation's events as the API gives them to the figures' count: with the articles each used. */
async function heldEvents(mirror: WorkspaceMirror, interactionId: string): Promise<Array<Record<string, unknown>>> {
  const events = await mirror.rows('SELECT id, role, type, approved, resolved, "csatRating" FROM events WHERE "interactionId" = $1 ORDER BY rowid', [interactionId]);
  const used = await mirror.rows('SELECT "eventId", "articleId" AS id, title FROM used_articles WHERE "interactionId" = $1 AND "eventId" IS NOT NULL ORDER BY rowid', [interactionId]);
  return events.map((event) => ({ ...event, usedArticles: used.filter((article) => article.eventId === event.id).map(({ id, title }) => ({ id, title })) }));
}

export const conversationDeleted = (_data: unknown, input: Input): Change[] => conversationsGone([String(input.interactionId)]);

/** create_article, update_article, create_article_draft, move_article: the article the API answered with. */
export async function articleAnswered(data: unknown, _input: Input, mirror: WorkspaceMirror): Promise<Change[]> {
  return isRecord(data) ? articleWritten(mirror, data) : [];
}

/** publish_article_draft: the live article it wrote, and the draft marked published. */
export async function draftPublished(data: unknown, input: Input, mirror: WorkspaceMirror): Promise<Change[]> {
  return [...(await articleAnswered(data, input, mirror)), { update: ARTICLES.name, set: { isDraftPublished: true }, where: { id: String(input.articleId) } }];
}

export const articleDeleted = (_data: unknown, input: Input): Change[] => [{ delete: ARTICLES.name, where: { id: String(input.articleId) } }];

/** create_folder, update_folder, move_folder: the folder the API answered with, keeping the agents the mirror knew for it. */
export async function folderAnswered(data: unknown, _input: Input, mirror: WorkspaceMirror): Promise<Change[]> {
  if (!isRecord(data) || typeof data.id !== 'string') return [];
  const [held] = await mirror.rows('SELECT "botIds" FROM folders WHERE id = $1', [data.id]);
  const folder = { ...data, botIds: data.botIds ?? held?.botIds ?? [] };
  return [{ put: FOLDERS.name, key: 'id', keys: [data.id], rows: [rowOf(FOLDERS, folder, { record: data })] }];
}

export const folderDeleted = (_data: unknown, input: Input): Change[] => [{ delete: FOLDERS.name, where: { id: String(input.folderId) } }];

/** assign_folders_to_agent: the agent added to each folder named. */
export function foldersAssigned(_data: unknown, input: Input, mirror: WorkspaceMirror): Promise<Change[]> {
  return agentsAdded(mirror, FOLDERS.name, Array.isArray(input.folderIds) ? input.folderIds.map(String) : [], typeof input.botId === 'string' ? [input.botId] : []);
}

/** create_action, update_action: the record the API answered with, in the list's compact form where it has its fields. */
export function actionAnswered(data: unknown): Change[] {
  if (!isRecord(data) || typeof data.id !== 'string') return [];
  return [{ put: ACTIONS.name, key: 'id', keys: [data.id], rows: [rowOf(ACTIONS, data)] }];
}

/** assign_action_to_agents: the agents added to the action or attribute. */
export function actionAssigned(_data: unknown, input: Input, mirror: WorkspaceMirror): Promise<Change[]> {
  const botIds = [...(Array.isArray(input.botIds) ? input.botIds.map(String) : []), ...(typeof input.botId === 'string' ? [input.botId] : [])];
  return agentsAdded(mirror, ACTIONS.name, typeof input.toolId === 'string' ? [input.toolId] : [], botIds);
}

async function agentsAdded(mirror: WorkspaceMirror, table: string, ids: string[], botIds: string[]): Promise<Change[]> {
  if (ids.length === 0 || botIds.length === 0) return [];
  const rows = await mirror.rows(`SELECT id, "botIds" FROM ${table === ACTIONS.name ? 'actions' : 'folders'} WHERE id IN (SELECT unnest($1))`, [ids]);
  return rows.map((row) => {
    const held = Array.isArray(row.botIds) ? row.botIds.map(String) : [];
    return { update: table, set: { botIds: [...new Set([...held, ...botIds])] }, where: { id: String(row.id) } };
  });
}

/** generate_answer on a conversation the mirror holds: the events it created, with the articles they used. */
export async function answerGenerated(data: unknown, input: Input, mirror: WorkspaceMirror): Promise<Change[]> {
  if (typeof input.interactionId !== 'string' || !Array.isArray(data)) return [];
  const [held] = await mirror.rows('SELECT id FROM conversations WHERE id = $1', [input.interactionId]);
  if (!held) return [];
  const interactionId = input.interactionId;
  const events = data.filter(isRecord);
  return [
    ...figureChanges([{ id: interactionId, events: [...(await heldEvents(mirror, interactionId)), ...events] }]),
    { insert: EVENTS.name, rows: events.map((event) => rowOf(EVENTS, event, { interactionId })) },
    {
      insert: USED_ARTICLES.name,
      rows: events.flatMap((event) =>
        (Array.isArray(event.usedArticles) ? event.usedArticles.filter(isRecord) : []).map((article) => rowOf(USED_ARTICLES, article, { interactionId, eventId: event.id, articleId: article.id })),
      ),
    },
  ];
}
