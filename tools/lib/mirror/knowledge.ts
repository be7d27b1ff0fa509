import type { ToolContext } from '../../../src/engine/define.js';
import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import type { Change } from '../../../src/mirror/schema.js';
import { records } from '../records.js';
import { listed, rowOf, timeOf } from './ingest.js';
import { ACTIONS, ARTICLE_VERSIONS, ARTICLES, FOLDERS } from './tables.js';

type Article = Record<string, unknown>;

/**
 * The knowledge as it stands: live articles and drafts (each version not seen before kept in
 * article_versions, which is how explain_change shows the sentences an edit changed), folders,
 * actions and attributes. Four requests, at background priority.
 */
export async function readKnowledge(context: ToolContext, mirror: WorkspaceMirror, counted: () => Promise<void>): Promise<void> {
  const read = async (tool: string, input: Record<string, unknown>) => {
    const listing = records(await context.call(tool, input, { background: true }));
    await counted();
    return listing;
  };
  const live = await read('list_articles', { type: 'live' });
  const drafts = await read('list_articles', { type: 'draft' });
  const folders = await read('list_folders', {});
  const actions = await read('list_actions', {});
  const articles = [...live.map((article) => ({ ...article, isDraft: article.isDraft ?? false })), ...drafts.map((article) => ({ ...article, isDraft: article.isDraft ?? true }))];
  await mirror.apply([listed(ARTICLES, articles), ...(await newVersions(mirror, articles, Date.now())), listed(FOLDERS, folders, (folder) => ({ record: folder })), listed(ACTIONS, actions)]);
}

/** One article as a write returned it (created, updated, drafted, published, moved): its row, and its version if new. */
export async function articleWritten(mirror: WorkspaceMirror, article: Article): Promise<Change[]> {
  if (typeof article.id !== 'string') return [];
  return [{ put: ARTICLES.name, key: 'id', keys: [article.id], rows: [rowOf(ARTICLES, article)] }, ...(await newVersions(mirror, [article], Date.now()))];
}

/** article_versions rows for the (id, version, updatedAt) the mirror has not seen. */
async function newVersions(mirror: WorkspaceMirror, articles: Article[], seenAt: number): Promise<Change[]> {
  const ids = articles.map((article) => String(article.id));
  if (ids.length === 0) return [];
  const seen = await mirror.rows('SELECT id, version, CAST(epoch_ms("updatedAt") AS DOUBLE) AS "updatedAt" FROM article_versions WHERE id IN (SELECT unnest($1))', [ids]);
  const known = new Set(seen.map((row) => versionKey(row.id, row.version, row.updatedAt)));
  const fresh = articles.filter((article) => !known.has(versionKey(article.id, article.version, timeOf(article.updatedAt))));
  return fresh.length ? [{ insert: ARTICLE_VERSIONS.name, rows: fresh.map((article) => rowOf(ARTICLE_VERSIONS, article, { seenAt })) }] : [];
}

const versionKey = (id: unknown, version: unknown, updatedAt: unknown) => JSON.stringify([String(id), version ?? null, updatedAt ?? null]);
