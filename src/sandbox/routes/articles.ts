/**
 * Articles: list live or draft, read by ids, create, update, draft from live, publish a draft,
 * move, delete. Payloads other than publish are "not shown": chosen, see CHOICES.md "Knowledge".
 */
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { defineRoutes, type RouteRequest } from '../router.js';
import { findInWorkspace, iso } from '../state.js';
import type { Article } from '../types.js';
import { Violations, isPlainObject, objectBody, oneOf, optionalBoolean, optionalString, requireString } from '../validate.js';
import { existingFolder } from './folders.js';
import { actor, advanceKnowledgeJobs } from './knowledge.js';

export const ARTICLE_TYPES = ['live', 'draft'] as const;

/** Article on the wire: every stored field but the internal `documentUrl`. */
export function articleView(a: Article) {
  const { documentUrl: _internal, ...rest } = a;
  return { ...rest, questions: [...a.questions], keywords: [...a.keywords], misc: structuredClone(a.misc) };
}

type Content = Partial<Pick<Article, 'title' | 'mainKnowledge' | 'agentInstruction' | 'questions' | 'keywords' | 'escalation' | 'misc' | 'active' | 'public'>>;

function stringList(v: Violations, name: string, value: unknown, nonEmpty: boolean): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    v.add(`${name} must be an array of strings`);
    return undefined;
  }
  if (nonEmpty && value.length === 0) v.add(`${name} should not be empty`);
  return [...value];
}

/**
 * Content fields of an article body. `required` names the fields that must be present
 * (create); `nonEmptyArrays` rejects empty `questions`/`keywords` (publish).
 */
function readContent(body: Record<string, unknown>, options: { required?: boolean; nonEmptyArrays?: boolean } = {}): Content {
  const v = new Violations();
  const out: Content = {};
  for (const name of ['title', 'mainKnowledge'] as const) {
    if (options.required || body[name] !== undefined) {
      const value = requireString(v, name, body[name]);
      if (value !== undefined) out[name] = value;
    }
  }
  const instruction = optionalString(v, 'agentInstruction', body.agentInstruction);
  if (instruction !== undefined) out.agentInstruction = instruction;
  const questions = stringList(v, 'questions', body.questions, Boolean(options.nonEmptyArrays));
  if (questions) out.questions = questions;
  const keywords = stringList(v, 'keywords', body.keywords, Boolean(options.nonEmptyArrays));
  if (keywords) out.keywords = keywords;
  for (const name of ['escalation', 'active', 'public'] as const) {
    const value = optionalBoolean(v, name, body[name]);
    if (value !== undefined) out[name] = value;
  }
  if (body.misc !== undefined) {
    if (!isPlainObject(body.misc)) v.add('misc must be an object');
    else out.misc = structuredClone(body.misc);
  }
  v.throwIfAny();
  return out;
}

function articleOr404(req: RouteRequest): Article {
  const article = findInWorkspace(req.state, req.workspace, 'articles', req.params.id);
  if (!article) throw notFound(`Article ${req.params.id} not found`);
  return article;
}

function listArticles(req: RouteRequest) {
  const v = new Violations();
  const type = oneOf(v, 'type', req.query.get('type') ?? undefined, ARTICLE_TYPES) ?? 'live';
  v.throwIfAny();
  advanceKnowledgeJobs(req.state, req.workspace, actor(req));
  const articles = [...req.workspace.articles.values()]
    .filter((a) => a.isDraft === (type === 'draft'))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  return { body: articles.map(articleView) };
}

function articlesByIds(req: RouteRequest) {
  const body = objectBody(req.body);
  if (!Array.isArray(body.articleIds) || body.articleIds.some((id) => typeof id !== 'string')) {
    throw badRequest(['articleIds must be an array of strings']);
  }
  advanceKnowledgeJobs(req.state, req.workspace, actor(req));
  const found = [];
  for (const id of new Set(body.articleIds as string[])) {
    const article = findInWorkspace(req.state, req.workspace, 'articles', id);
    if (article) found.push(articleView(article));
  }
  return { body: found };
}

function createArticle(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const body = objectBody(req.body);
  const content = readContent(body, { required: true });
  const folder = existingFolder(state, ws, 'parentFolderId', body.parentFolderId);
  const at = iso(req.now);
  const article: Article = {
    id: newId(),
    title: content.title!,
    mainKnowledge: content.mainKnowledge!,
    agentInstruction: content.agentInstruction ?? '',
    questions: content.questions ?? [],
    keywords: content.keywords ?? [],
    escalation: content.escalation ?? false,
    misc: content.misc ?? {},
    active: content.active ?? true,
    public: content.public ?? false,
    parentFolderId: folder.id,
    companyId: ws.id,
    createdAt: at,
    updatedAt: at,
    version: 1,
    isDraft: false,
    isDraftPublished: false,
    originalArticleId: null,
    originalArticleVersion: null,
    createdBy: actor(req),
    updatedBy: actor(req),
    origin: 'API_CREATED',
    documentUrl: null,
  };
  ws.articles.set(article.id, article);
  return { status: 201, body: articleView(article) };
}

function updateArticle(req: RouteRequest) {
  const article = articleOr404(req);
  const body = objectBody(req.body);
  const content = readContent(body);
  const folder = body.parentFolderId === undefined ? undefined : existingFolder(req.state, req.workspace, 'parentFolderId', body.parentFolderId);
  Object.assign(article, content);
  if (folder) article.parentFolderId = folder.id;
  article.version += 1;
  article.updatedAt = iso(req.now);
  article.updatedBy = actor(req);
  return { body: articleView(article) };
}

function createDraft(req: RouteRequest) {
  const ws = req.workspace;
  const live = articleOr404(req);
  if (live.isDraft) throw badRequest([`article ${live.id} is a draft; drafts are created from live articles`]);
  const content = readContent(objectBody(req.body));
  const at = iso(req.now);
  const draft: Article = {
    ...live,
    questions: [...live.questions],
    keywords: [...live.keywords],
    misc: structuredClone(live.misc),
    ...content,
    id: newId(),
    createdAt: at,
    updatedAt: at,
    version: 1,
    isDraft: true,
    isDraftPublished: false,
    originalArticleId: live.id,
    originalArticleVersion: live.version,
    createdBy: actor(req),
    updatedBy: actor(req),
    origin: 'API_CREATED',
    documentUrl: null,
  };
  ws.articles.set(draft.id, draft);
  return { status: 201, body: articleView(draft) };
}

function publishDraft(req: RouteRequest) {
  const ws = req.workspace;
  const draft = findInWorkspace(req.state, ws, 'articles', req.params.id);
  if (!draft || !draft.isDraft) throw notFound(`Draft article ${req.params.id} not found`);
  if (draft.isDraftPublished) throw badRequest([`draft ${draft.id} has already been published`]);
  const content = readContent(objectBody(req.body), { nonEmptyArrays: true });
  const merged = {
    title: draft.title,
    mainKnowledge: draft.mainKnowledge,
    agentInstruction: draft.agentInstruction,
    questions: [...draft.questions],
    keywords: [...draft.keywords],
    escalation: draft.escalation,
    misc: structuredClone(draft.misc),
    active: draft.active,
    public: draft.public,
    ...content,
  };
  const at = iso(req.now);
  const original = draft.originalArticleId ? ws.articles.get(draft.originalArticleId) : undefined;
  let live: Article;
  if (original && !original.isDraft) {
    Object.assign(original, merged, { version: original.version + 1, updatedAt: at, updatedBy: actor(req), origin: draft.origin });
    live = original;
  } else {
    live = {
      ...merged,
      id: newId(),
      parentFolderId: draft.parentFolderId,
      companyId: ws.id,
      createdAt: at,
      updatedAt: at,
      version: 1,
      isDraft: false,
      isDraftPublished: false,
      originalArticleId: null,
      originalArticleVersion: null,
      createdBy: actor(req),
      updatedBy: actor(req),
      origin: draft.origin,
      documentUrl: null,
    };
    ws.articles.set(live.id, live);
  }
  draft.isDraftPublished = true;
  draft.updatedAt = at;
  return { body: articleView(live) };
}

function moveArticle(req: RouteRequest) {
  const article = articleOr404(req);
  const body = objectBody(req.body);
  const folder = existingFolder(req.state, req.workspace, 'parentFolderId', body.parentFolderId);
  article.parentFolderId = folder.id;
  article.updatedAt = iso(req.now);
  article.updatedBy = actor(req);
  return { body: articleView(article) };
}

function deleteArticle(req: RouteRequest) {
  const article = articleOr404(req);
  req.workspace.articles.delete(article.id);
  return { body: { success: true } };
}

export const routes = defineRoutes([
  { method: 'GET', path: '/v2/hc-articles/public', scope: 'read', handler: listArticles },
  { method: 'POST', path: '/v2/hc-articles/ids/public', scope: 'read', handler: articlesByIds },
  { method: 'POST', path: '/v2/hc-articles/public', scope: 'write', handler: createArticle },
  { method: 'PUT', path: '/v2/hc-articles/{id}/public', scope: 'write', handler: updateArticle },
  { method: 'POST', path: '/v2/hc-articles/{id}/draft/public', scope: 'write', handler: createDraft },
  { method: 'POST', path: '/v2/hc-articles/{id}/publish/public', scope: 'write', handler: publishDraft },
  { method: 'PUT', path: '/v2/hc-articles/{id}/move/public', scope: 'write', handler: moveArticle },
  { method: 'DELETE', path: '/v2/hc-articles/{id}/public', scope: 'write', handler: deleteArticle },
]);
