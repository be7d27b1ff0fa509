/**
 * Articles: list live or draft, read by ids, create, update, draft from live, publish a draft,
 * move, delete. Payloads other than publish are "not shown": chosen, see CHOICES.md "Knowledge".
 */
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { findInWorkspace, iso, requireInWorkspace } from '../state.js';
import type { Article } from '../types.js';
import { checkOne, Violations, isPlainObject, objectBody, oneOf, optionalBoolean, optionalString, requireString } from '../validate.js';
import { existingFolder } from './folders.js';
import { actor, advanceKnowledgeJobs } from './knowledge.js';

export const ARTICLE_TYPES = ['live', 'draft'] as const;

/** Article on the wire: every stored field but the internal `documentUrl`. */
export function articleView(a: Article) {
  const { documentUrl: _url, publishedArticleId: _published, ...rest } = a;
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
  return requireInWorkspace(req.state, req.workspace, 'articles', req.params.id, `Article ${req.params.id} not found`);
}

export function listArticles(req: RouteRequest) {
  const type = checkOne((v) => oneOf(v, 'type', req.query.get('type') ?? undefined, ARTICLE_TYPES) ?? 'live');
  advanceKnowledgeJobs(req.state, req.workspace, actor(req));
  const articles = [...req.workspace.articles.values()].filter((a) => a.isDraft === (type === 'draft')).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  return { body: articles.map(articleView) };
}

export function articlesByIds(req: RouteRequest) {
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

type ArticleBody = Required<Content>;

/** The body fields of an article, copied so that a draft and its original never share arrays. */
function bodyOf(article: Article): ArticleBody {
  return {
    title: article.title,
    mainKnowledge: article.mainKnowledge,
    agentInstruction: article.agentInstruction,
    questions: [...article.questions],
    keywords: [...article.keywords],
    escalation: article.escalation,
    misc: structuredClone(article.misc),
    active: article.active,
    public: article.public,
  };
}

/** A new article record at version 1, written now by the caller's key. */
function newArticle(req: RouteRequest, body: ArticleBody, fields: Pick<Article, 'parentFolderId' | 'isDraft' | 'originalArticleId' | 'originalArticleVersion' | 'origin'>): Article {
  const at = iso(req.now);
  return {
    ...body,
    ...fields,
    id: newId(),
    companyId: req.workspace.id,
    createdAt: at,
    updatedAt: at,
    version: 1,
    isDraftPublished: false,
    createdBy: actor(req),
    updatedBy: actor(req),
    documentUrl: null,
  };
}

export function createArticle(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const input = objectBody(req.body);
  const content = readContent(input, { required: true });
  const folder = existingFolder(state, ws, 'parentFolderId', input.parentFolderId);
  const body: ArticleBody = {
    title: content.title!,
    mainKnowledge: content.mainKnowledge!,
    agentInstruction: content.agentInstruction ?? '',
    questions: content.questions ?? [],
    keywords: content.keywords ?? [],
    escalation: content.escalation ?? false,
    misc: content.misc ?? {},
    active: content.active ?? true,
    public: content.public ?? false,
  };
  const article = newArticle(req, body, { parentFolderId: folder.id, isDraft: false, originalArticleId: null, originalArticleVersion: null, origin: 'API_CREATED' });
  ws.articles.set(article.id, article);
  return { status: 201, body: articleView(article) };
}

export function updateArticle(req: RouteRequest) {
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

export function createDraft(req: RouteRequest) {
  const ws = req.workspace;
  const live = articleOr404(req);
  if (live.isDraft) throw badRequest([`article ${live.id} is a draft; drafts are created from live articles`]);
  const content = readContent(objectBody(req.body));
  const draft = newArticle(
    req,
    { ...bodyOf(live), ...content },
    {
      parentFolderId: live.parentFolderId,
      isDraft: true,
      originalArticleId: live.id,
      originalArticleVersion: live.version,
      origin: 'API_CREATED',
    },
  );
  ws.articles.set(draft.id, draft);
  return { status: 201, body: articleView(draft) };
}

export function publishDraft(req: RouteRequest) {
  const ws = req.workspace;
  const draft = findInWorkspace(req.state, ws, 'articles', req.params.id);
  if (!draft?.isDraft) throw notFound(`Draft article ${req.params.id} not found`);
  const content = readContent(objectBody(req.body), { nonEmptyArrays: true });
  const merged = { ...bodyOf(draft), ...content };
  const at = iso(req.now);
  // The spec states no once-only rule: publishing again writes the draft to the same live article.
  const target = [draft.originalArticleId, draft.publishedArticleId].map((id) => (id ? ws.articles.get(id) : undefined)).find((article) => article !== undefined && !article.isDraft);
  let live: Article;
  if (target) {
    Object.assign(target, merged, { version: target.version + 1, updatedAt: at, updatedBy: actor(req), origin: draft.origin });
    live = target;
  } else {
    live = newArticle(req, merged, { parentFolderId: draft.parentFolderId, isDraft: false, originalArticleId: null, originalArticleVersion: null, origin: draft.origin });
    ws.articles.set(live.id, live);
  }
  draft.publishedArticleId = live.id;
  draft.isDraftPublished = true;
  draft.updatedAt = at;
  return { body: articleView(live) };
}

export function moveArticle(req: RouteRequest) {
  const article = articleOr404(req);
  const body = objectBody(req.body);
  const folder = existingFolder(req.state, req.workspace, 'parentFolderId', body.parentFolderId);
  article.parentFolderId = folder.id;
  article.updatedAt = iso(req.now);
  article.updatedBy = actor(req);
  return { body: articleView(article) };
}

export function deleteArticle(req: RouteRequest) {
  const article = articleOr404(req);
  req.workspace.articles.delete(article.id);
  return { body: { success: true } };
}
