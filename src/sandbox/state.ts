/**
 * In-memory state of the sandbox: one Workspace per companyId, plus the API keys.
 * Route modules read and mutate these Maps directly; helpers below cover the shared
 * bits (cross-workspace lookup, serializers, folder visibility, job progression).
 */
import { createHash } from 'node:crypto';
import { ConversationStore } from './conversation-store.js';
import { forbiddenWorkspace, notFound } from './errors.js';
import type {
  Article,
  Attachment,
  Bot,
  BotFolderJunction,
  Conversation,
  CriteriaGroup,
  DataStep,
  Folder,
  HcTool,
  IngestionJob,
  IntentRule,
  KeyRecord,
  PromptVersion,
  ProviderCatalog,
  ProviderKind,
  PublicConversation,
  PublicEvent,
  Replay,
  FixReviewSession,
  SourceRecord,
  StoredAttachment,
  StoredEvent,
  Tag,
  TagGroup,
  TestCase,
  TestSet,
  TestSetRun,
  ToolAssignment,
  PublicArticle,
  MaskedValue,
  EventRole,
  EventType,
} from './types.js';

/** The records a workspace holds by id, one Map per kind: what createWorkspace starts empty and Workspace types. */
function emptyCollections() {
  return {
    bots: new Map<string, Bot>(),
    /** live and drafts */
    articles: new Map<string, Article>(),
    folders: new Map<string, Folder>(),
    botFolderJunctions: new Map<string, BotFolderJunction>(),
    sources: new Map<string, SourceRecord>(),
    jobs: new Map<string, IngestionJob>(),
    /** actions and attributes */
    tools: new Map<string, HcTool>(),
    dataSteps: new Map<string, DataStep>(),
    toolAssignments: new Map<string, ToolAssignment>(),
    rules: new Map<string, IntentRule>(),
    replays: new Map<string, Replay>(),
    refineSessions: new Map<string, FixReviewSession>(),
    criteriaGroups: new Map<string, CriteriaGroup>(),
    testCases: new Map<string, TestCase>(),
    testSets: new Map<string, TestSet>(),
    testSetRuns: new Map<string, TestSetRun>(),
    promptVersions: new Map<string, PromptVersion>(),
    tagGroups: new Map<string, TagGroup>(),
    tags: new Map<string, Tag>(),
  };
}

export interface Workspace extends ReturnType<typeof emptyCollections> {
  /** the companyId */
  id: string;
  name: string;
  conversations: ConversationStore;
  /** providers connected in this workspace (discovery/register/ingest reject others with 400) */
  connectedProviders: Set<ProviderKind>;
  /** importable resources per provider (discovery excludes those already registered as sources) */
  providerCatalog: ProviderCatalog;
}

export function createWorkspace(id: string, name: string): Workspace {
  return { id, name, conversations: new ConversationStore(), connectedProviders: new Set(), providerCatalog: { notes: [], helpcenter: [], wiki: [] }, ...emptyCollections() };
}

export interface JobTimings {
  pendingMs: number;
  inProgressMs: number;
}

export interface SandboxState {
  workspaces: Map<string, Workspace>;
  keys: KeyRecord[];
  /** base URL of the running sandbox (no trailing slash) */
  baseUrl: string;
  now: () => number;
  jobTimings: JobTimings;
  /** refine iteration stage length and test-set run duration (routes/refine.ts, routes/testing.ts) */
  refineTimings?: { stepMs: number };
  testRunTimings?: { runMs: number };
}

// ---------------------------------------------------------------------------
// Cross-workspace lookup

/** Names of the Workspace properties that are Maps keyed by id. */
export type CollectionName = {
  [K in keyof Workspace]: Workspace[K] extends Map<string, unknown> ? K : never;
}[keyof Workspace];
export type CollectionValue<K extends CollectionName> = Workspace[K] extends Map<string, infer V> ? V : never;

/**
 * Finds a record by id in the caller's workspace. When the id exists only in another
 * workspace, throws 403 (spec: a key "scoped to a different workspace than the data gets 403").
 * Returns undefined when the id exists nowhere: the caller picks its 404/406/500/400.
 */
export function findInWorkspace<K extends CollectionName>(state: SandboxState, ws: Workspace, collection: K, id: string): CollectionValue<K> | undefined {
  const own = (ws[collection] as Map<string, CollectionValue<K>>).get(id);
  if (own !== undefined) return own;
  if (ownerOf(state, collection, id) !== undefined) throw forbiddenWorkspace();
  return undefined;
}

/** As findInWorkspace, with a 404 carrying `message` when the id exists nowhere. */
export function requireInWorkspace<K extends CollectionName>(state: SandboxState, ws: Workspace, collection: K, id: string, message: string): CollectionValue<K> {
  const found = findInWorkspace(state, ws, collection, id);
  if (found === undefined) throw notFound(message);
  return found;
}

/** The workspace holding `id` in `collection`, if any. */
export function ownerOf(state: SandboxState, collection: CollectionName, id: string): Workspace | undefined {
  for (const w of state.workspaces.values()) {
    if ((w[collection] as Map<string, unknown>).has(id)) return w;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Time helpers

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const iso = (ms: number): string => new Date(ms).toISOString();

// ---------------------------------------------------------------------------
// Conversations

const ATTACHMENT_URL_TTL_MS = 3_600_000;

/** Re-signs an attachment URL (spec: signed URLs are refreshed before return). */
export function signAttachment(state: SandboxState, a: StoredAttachment): Attachment {
  const expiresAt = state.now() + ATTACHMENT_URL_TTL_MS;
  const signature = createHash('sha256').update(`${a.storagePath}:${expiresAt}`).digest('hex').slice(0, 32);
  const storageUrl = `${state.baseUrl}/__sandbox/files/${a.storagePath.split('/').map(encodeURIComponent).join('/')}?expires=${expiresAt}&signature=${signature}`;
  const out: Attachment = { storageUrl, storagePath: a.storagePath, originalUrl: a.originalUrl, contentType: a.contentType, expiresAt };
  if (a.sizeBytes !== undefined) out.sizeBytes = a.sizeBytes;
  return out;
}

export function toPublicEvent(state: SandboxState, e: StoredEvent): PublicEvent {
  return {
    id: e.id,
    interactionId: e.interactionId,
    createdAt: e.createdAt,
    role: e.role,
    type: e.type,
    message: e.message,
    externalId: e.externalId,
    externalCreatedAt: e.externalCreatedAt,
    csatRating: e.csatRating,
    feedback: e.feedback,
    approved: e.approved,
    resolved: e.resolved,
    attachments: e.attachments.map((a) => signAttachment(state, a)),
    tags: e.tags.map((t) => ({ ...t })),
    usedArticles: e.usedArticles.map((a) => ({ ...a })),
  };
}

export function toPublicConversation(state: SandboxState, c: Conversation): PublicConversation {
  return {
    id: c.id,
    createdAt: c.createdAt,
    externalCreatedAt: c.externalCreatedAt,
    source: c.source,
    channel: c.channel,
    status: c.status,
    externalId: c.externalId,
    url: c.url,
    subjectPreview: c.subjectPreview,
    hasFeedback: c.hasFeedback,
    resolved: c.resolved,
    userAttributes: c.userAttributes === null ? null : structuredClone(c.userAttributes),
    usedArticles: c.usedArticles.map((a) => ({ ...a })),
    usedSubfolders: c.usedSubfolders.map((f) => ({ ...f })),
    events: c.events.map((e) => toPublicEvent(state, e)),
  };
}

/** The subject preview of a conversation: its first message, shortened. */
export function subjectOf(message: string): string {
  return message.length > 80 ? `${message.slice(0, 77)}...` : message;
}

/** A conversation with no events, feedback or retrieved articles yet; `fields` give the rest. */
export function newConversation(fields: Pick<Conversation, 'id' | 'createdAt' | 'source' | 'channel' | 'subjectPreview' | 'companyId' | 'botId'> & Partial<Conversation>): Conversation {
  return {
    externalCreatedAt: null,
    status: null,
    externalId: null,
    url: null,
    hasFeedback: false,
    resolved: null,
    userAttributes: null,
    usedArticles: [],
    usedSubfolders: [],
    events: [],
    metadata: {},
    touchedByService: true,
    ...fields,
  };
}

/** A new event with nothing rated, tagged or attached yet. */
export function newEvent(interactionId: string, id: string, at: number, role: EventRole, type: EventType, message: string | null): StoredEvent {
  return {
    id,
    interactionId,
    createdAt: at,
    role,
    type,
    message,
    externalId: null,
    externalCreatedAt: null,
    csatRating: null,
    feedback: null,
    approved: null,
    resolved: null,
    attachments: [],
    tags: [],
    usedArticles: [],
  };
}

/**
 * Conversation `resolved` per the States table: from all svcbot-authored events with
 * approved=false: none -> null; every one resolved -> true; any unresolved -> false.
 */
export function computeResolved(c: Conversation): boolean | null {
  const negatives = c.events.filter((e) => e.role === 'svcbot' && e.approved === false);
  if (negatives.length === 0) return null;
  return negatives.every((e) => e.resolved === true);
}

/** `hasFeedback`: any event carries a thumbs value, a feedback note or a CSAT rating. */
export function computeHasFeedback(c: Conversation): boolean {
  return c.events.some((e) => e.approved !== null || (e.feedback !== null && e.feedback !== '') || e.csatRating !== null);
}

export function articleRef(a: Article): PublicArticle {
  return { id: a.id, title: a.title, documentUrl: a.documentUrl };
}

// ---------------------------------------------------------------------------
// Folders and agent visibility

export function folderBotIds(ws: Workspace, folderId: string): string[] {
  const ids: string[] = [];
  for (const j of ws.botFolderJunctions.values()) if (j.folderId === folderId && !ids.includes(j.botId)) ids.push(j.botId);
  return ids;
}

/** Folder as returned on the wire: stored fields plus `botIds` derived from junctions. */
export function folderView(ws: Workspace, f: Folder): Folder & { botIds: string[] } {
  return { ...f, botIds: folderBotIds(ws, f.id) };
}

/** The folder and all its descendants. */
export function folderSubtree(ws: Workspace, folderId: string): Set<string> {
  const out = new Set<string>([folderId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const f of ws.folders.values()) {
      if (f.parentFolderId !== null && out.has(f.parentFolderId) && !out.has(f.id)) {
        out.add(f.id);
        grew = true;
      }
    }
  }
  return out;
}

/** Folders an agent sees: folders assigned through junctions, including their subfolders. */
export function visibleFolderIds(ws: Workspace, botId: string): Set<string> {
  const out = new Set<string>();
  for (const j of ws.botFolderJunctions.values()) {
    if (j.botId !== botId) continue;
    for (const id of folderSubtree(ws, j.folderId)) out.add(id);
  }
  return out;
}

/** Live, active articles an agent answers from. */
export function liveArticlesForBot(ws: Workspace, botId: string): Article[] {
  const folders = visibleFolderIds(ws, botId);
  return [...ws.articles.values()].filter((a) => !a.isDraft && a.active && folders.has(a.parentFolderId));
}

// ---------------------------------------------------------------------------
// Ingestion jobs: PENDING -> IN_PROGRESS -> COMPLETED | FAILED over time

/**
 * Brings a job (and its source record) up to date with the clock. Jobs move from PENDING to
 * IN_PROGRESS after `jobTimings.pendingMs` and end after a further `jobTimings.inProgressMs`.
 * Call before reading a job or a source record.
 */
export function advanceJob(state: SandboxState, ws: Workspace, job: IngestionJob): void {
  const elapsed = state.now() - job.queuedAt;
  const { pendingMs, inProgressMs } = state.jobTimings;
  let status: IngestionJob['status'] = 'PENDING';
  if (elapsed >= pendingMs + inProgressMs) status = job.outcome;
  else if (elapsed >= pendingMs) status = 'IN_PROGRESS';
  if (status === job.status) return;
  job.status = status;
  const src = ws.sources.get(job.documentId);
  if (!src || src.linkedJobId !== job.id) return;
  src.linkedJobStatus = status;
  src.updatedAt = iso(state.now());
  if (status === 'COMPLETED') {
    src.success = true;
    src.error = '';
    src.changed = true;
    src.paragraphs = [...job.resultParagraphs];
  } else if (status === 'FAILED') {
    src.success = false;
    src.error = job.failureError || 'Processing failed';
  }
}

export function advanceAllJobs(state: SandboxState, ws: Workspace): void {
  for (const job of ws.jobs.values()) advanceJob(state, ws, job);
}

// ---------------------------------------------------------------------------
// Data-step masking

export const MASK = '********';

/** Masked wire form of header/body values: sensitive ones read back as `{hide: true, value: '********'}`. */
export function maskValues(values: Record<string, MaskedValue> | null): Record<string, MaskedValue> | null {
  if (values === null) return null;
  const out: Record<string, MaskedValue> = {};
  for (const [k, v] of Object.entries(values)) out[k] = v.hide ? { hide: true, value: MASK } : { hide: false, value: v.value };
  return out;
}
