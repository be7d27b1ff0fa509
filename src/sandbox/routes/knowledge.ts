/**
 * Knowledge generation (spec: method, path and scope only; payloads "not shown"). The shapes
 * chosen here are listed in CHOICES.md "Knowledge". Generated articles are drafts: the spec
 * recommends review before publishing.
 */
import { badRequest } from '../errors.js';
import { newId, newJobId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { findInWorkspace, iso, type SandboxState, type Workspace } from '../state.js';
import type { Article, Folder, JobStatus, SourceRecord } from '../types.js';
import { checkOne, type Violations, objectBody, requireString } from '../validate.js';
import { optionalFolder } from './folders.js';
import { refreshSource } from './sources.js';

interface KnowledgeJob {
  id: string;
  documentId: string;
  status: JobStatus;
  queuedAt: number;
  /** folder chosen at queueing, or null for the default "Generated knowledge" folder */
  folderId: string | null;
  articleId: string | null;
  error: string;
}

interface TreeArticle {
  title: string;
  documentId: string;
}
interface TreeFolder {
  name: string;
  articles: TreeArticle[];
}
interface KnowledgeTree {
  treeId: string;
  parentFolderId: string | null;
  folders: TreeFolder[];
  persisted: boolean;
}

interface KnowledgeStore {
  jobs: Map<string, KnowledgeJob>;
  trees: Map<string, KnowledgeTree>;
}

const stores = new WeakMap<Workspace, KnowledgeStore>();

function storeOf(ws: Workspace): KnowledgeStore {
  let store = stores.get(ws);
  if (!store) {
    store = { jobs: new Map(), trees: new Map() };
    stores.set(ws, store);
  }
  return store;
}

/** `createdBy`/`updatedBy` of records written through the API: the key's name (user ids of keys are not modelled). */
export function actor(req: RouteRequest): string {
  return `api-key:${req.key.name}`;
}

export const GENERATED_FOLDER_NAME = 'Generated knowledge';

function defaultFolder(ws: Workspace, now: number): Folder {
  const existing = [...ws.folders.values()].find((f) => f.parentFolderId === null && f.name === GENERATED_FOLDER_NAME);
  if (existing) return existing;
  const folder: Folder = { id: newId(), companyId: ws.id, name: GENERATED_FOLDER_NAME, parentFolderId: null, createdAt: iso(now), updatedAt: iso(now) };
  ws.folders.set(folder.id, folder);
  return folder;
}

/** A draft article made from a processed source, linked back to it (`linkedKnowledgeId`, `misc.sourceDocumentId`). */
function draftFromSource(ws: Workspace, source: SourceRecord, folderId: string, now: number, createdBy: string, title = source.title): Article {
  const words = [...new Set(title.toLowerCase().match(/[a-z0-9]{3,}/g) ?? [])].slice(0, 6);
  const article: Article = {
    id: newId(),
    title,
    mainKnowledge: source.paragraphs.join('\n\n'),
    agentInstruction: '',
    questions: [`What should I know about ${title.toLowerCase()}?`],
    keywords: words,
    escalation: false,
    misc: { sourceDocumentId: source.id, sourceUrl: source.url },
    active: true,
    public: false,
    parentFolderId: folderId,
    companyId: ws.id,
    createdAt: iso(now),
    updatedAt: iso(now),
    version: 1,
    isDraft: true,
    isDraftPublished: false,
    originalArticleId: null,
    originalArticleVersion: null,
    createdBy,
    updatedBy: createdBy,
    origin: 'KNOWLEDGE_GENERATED',
    documentUrl: null,
  };
  ws.articles.set(article.id, article);
  source.linkedKnowledgeId = article.id;
  source.updatedAt = iso(now);
  return article;
}

/**
 * Moves knowledge jobs on with the same timings as ingestion. At the end a job completes with a
 * draft article when its source was processed successfully, or fails with an error.
 */
export function advanceKnowledgeJobs(state: SandboxState, ws: Workspace, createdBy = 'api'): void {
  const { pendingMs, inProgressMs } = state.jobTimings;
  for (const job of storeOf(ws).jobs.values()) {
    if (job.status === 'COMPLETED' || job.status === 'FAILED') continue;
    const elapsed = state.now() - job.queuedAt;
    if (elapsed < pendingMs) continue;
    if (elapsed < pendingMs + inProgressMs) {
      job.status = 'IN_PROGRESS';
      continue;
    }
    const source = ws.sources.get(job.documentId);
    if (source) refreshSource(state, ws, source);
    if (source?.linkedJobStatus !== 'COMPLETED' || !source.success || source.paragraphs.length === 0) {
      job.status = 'FAILED';
      job.error = source ? `Source ${source.id} has no processed content (linkedJobStatus ${source.linkedJobStatus}); ingest it successfully first` : `Source ${job.documentId} no longer exists`;
      continue;
    }
    const folderId = job.folderId && ws.folders.has(job.folderId) ? job.folderId : defaultFolder(ws, state.now()).id;
    job.articleId = draftFromSource(ws, source, folderId, state.now(), createdBy).id;
    job.status = 'COMPLETED';
  }
}

function idList(v: Violations, name: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    v.add(`${name} should not be empty`);
    return [];
  }
  if (value.some((id) => typeof id !== 'string' || id.trim() === '')) v.add(`each value in ${name} must be a non-empty string`);
  return value.filter((id): id is string => typeof id === 'string').map((id) => id.trim());
}

function sourceOf(state: SandboxState, ws: Workspace, name: string, id: string): SourceRecord {
  const source = findInWorkspace(state, ws, 'sources', id);
  if (!source) throw badRequest([`${name} must contain ids of sources in this workspace (unknown: ${id})`]);
  return source;
}

function queue(req: RouteRequest, documentIds: string[], folderId: string | null) {
  const store = storeOf(req.workspace);
  return documentIds.map((documentId) => {
    const job: KnowledgeJob = { id: newJobId(), documentId, status: 'PENDING', queuedAt: req.now, folderId, articleId: null, error: '' };
    store.jobs.set(job.id, job);
    return { id: job.id, documentId, status: job.status };
  });
}

export function generate(req: RouteRequest) {
  const body = objectBody(req.body);
  const documentId = checkOne((v) => requireString(v, 'documentId', body.documentId));
  sourceOf(req.state, req.workspace, 'documentId', documentId!);
  const folderId = optionalFolder(req, body, 'folderId');
  return { body: queue(req, [documentId!], folderId)[0] };
}

export function generateBulk(req: RouteRequest) {
  const body = objectBody(req.body);
  const documentIds = checkOne((v) => idList(v, 'documentIds', body.documentIds));
  for (const id of documentIds) sourceOf(req.state, req.workspace, 'documentIds', id);
  const folderId = optionalFolder(req, body, 'folderId');
  return { body: { jobs: queue(req, [...new Set(documentIds)], folderId) } };
}

export function jobsStatus(req: RouteRequest) {
  const body = objectBody(req.body);
  const jobIds = checkOne((v) => idList(v, 'jobIds', body.jobIds));
  advanceKnowledgeJobs(req.state, req.workspace, actor(req));
  const store = storeOf(req.workspace);
  const jobs = [];
  const notFound: string[] = [];
  for (const id of jobIds) {
    const job = store.jobs.get(id);
    if (!job) {
      notFound.push(id);
      continue;
    }
    jobs.push({ id: job.id, documentId: job.documentId, status: job.status, articleId: job.articleId, error: job.error });
  }
  return { body: { jobs, notFound } };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

export function initializeTree(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const body = objectBody(req.body);
  const documentIds = checkOne((v) => idList(v, 'documentIds', body.documentIds));
  const parentFolderId = optionalFolder(req, body, 'parentFolderId');
  const groups = new Map<string, TreeArticle[]>();
  const skipped: { documentId: string; reason: string }[] = [];
  for (const id of [...new Set(documentIds)]) {
    const source = refreshSource(state, ws, sourceOf(state, ws, 'documentIds', id));
    if (source.linkedJobStatus !== 'COMPLETED' || !source.success) {
      skipped.push({ documentId: id, reason: `not processed successfully (linkedJobStatus ${source.linkedJobStatus})` });
      continue;
    }
    const group = source.source === 'web' ? hostOf(source.url) : source.source;
    groups.set(group, [...(groups.get(group) ?? []), { title: source.title, documentId: source.id }]);
  }
  const tree: KnowledgeTree = {
    treeId: `tree_${newId().slice(0, 8)}`,
    parentFolderId,
    folders: [...groups].map(([name, articles]) => ({ name, articles })),
    persisted: false,
  };
  storeOf(ws).trees.set(tree.treeId, tree);
  return { body: { treeId: tree.treeId, parentFolderId, folders: tree.folders, skipped } };
}

export function persistTree(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const body = objectBody(req.body);
  const treeId = checkOne((v) => requireString(v, 'treeId', body.treeId));
  const tree = storeOf(ws).trees.get(treeId!);
  if (!tree) throw badRequest(['treeId must be the id of a tree from initialize in this workspace']);
  if (tree.persisted) throw badRequest([`tree ${tree.treeId} has already been persisted`]);
  const parentFolderId = optionalFolder(req, body, 'parentFolderId') ?? tree.parentFolderId;
  const folders = [];
  const articles = [];
  for (const node of tree.folders) {
    const folder: Folder = { id: newId(), companyId: ws.id, name: node.name, parentFolderId, createdAt: iso(req.now), updatedAt: iso(req.now) };
    ws.folders.set(folder.id, folder);
    folders.push({ id: folder.id, name: folder.name, parentFolderId });
    for (const entry of node.articles) {
      const source = ws.sources.get(entry.documentId);
      if (!source) continue;
      const article = draftFromSource(ws, refreshSource(state, ws, source), folder.id, req.now, actor(req), entry.title);
      articles.push({ id: article.id, title: article.title, documentId: source.id, parentFolderId: folder.id, isDraft: true });
    }
  }
  tree.persisted = true;
  return { body: { treeId: tree.treeId, folders, articles } };
}
