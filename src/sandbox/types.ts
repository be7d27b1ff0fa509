/**
 * Resource types of the simulated Support-Agent Workspace.
 *
 * Field names follow the API specification exactly. Where the spec says "not shown",
 * the chosen names are listed in CHOICES.md. Fields marked "internal" are kept by the
 * sandbox for its own bookkeeping and are never serialized onto the wire as-is.
 */

export type Scope = 'read' | 'write';
export type Channel = 'chat' | 'email';
export type EventRole = 'user' | 'agent' | 'svcbot' | 'otherbot';
export type EventType = 'message' | 'internalnote' | 'no_reply' | 'silent_escalation' | 'debounce' | 'widget_form';

/** Wire values of the provider kinds (`<drive>`, `<notes>`, `<helpcenter>`, `<wiki>`); see CHOICES.md. */
export type ProviderKind = 'drive' | 'notes' | 'helpcenter' | 'wiki';
export type SourceKind = 'web' | ProviderKind;
export type JobStatus = 'PENDING' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';

// ---------------------------------------------------------------------------
// API keys

export interface KeyRecord {
  name: string;
  /** Plaintext value (the sandbox keeps it so tests can use it; a real service would store a hash). */
  key: string;
  scopes: Scope[];
  workspaceId: string;
  revoked: boolean;
  /** Short visible beginning of the key, e.g. `svc_3f9a`. */
  prefix: string;
  createdBy: string;
  created: string; // ISO 8601
  lastUsed: string | null; // ISO 8601; updated when a request authenticates
}

// ---------------------------------------------------------------------------
// Agents (bots). Record fields are "not shown" in the spec: chosen, see CHOICES.md.

export interface Bot {
  id: string;
  companyId: string;
  name: string;
  description: string | null;
  channels: Channel[];
  createdAt: string; // ISO 8601
  isActive: boolean;
}

// ---------------------------------------------------------------------------
// Conversations and events

export interface PublicArticle {
  id: string;
  title: string;
  documentUrl: string | null;
}

export interface TagReference {
  id: string;
  name: string;
  groupId: string | null;
}

/** Stored form of an attachment; `storageUrl` and `expiresAt` are signed afresh on every read. */
export interface StoredAttachment {
  storagePath: string;
  originalUrl: string;
  contentType: string;
  sizeBytes?: number;
}

export interface Attachment extends StoredAttachment {
  storageUrl: string;
  expiresAt: number; // epoch ms
}

export interface StoredEvent {
  id: string;
  interactionId: string;
  createdAt: number; // epoch ms
  role: EventRole;
  type: EventType;
  message: string | null;
  externalId: string | null;
  externalCreatedAt: number | null;
  csatRating: number | null;
  feedback: string | null;
  approved: boolean | null;
  resolved: boolean | null;
  attachments: StoredAttachment[];
  tags: TagReference[];
  usedArticles: PublicArticle[];
}

export interface PublicEvent extends Omit<StoredEvent, 'attachments'> {
  attachments: Attachment[];
}

export interface Conversation {
  id: string;
  createdAt: number; // epoch ms
  externalCreatedAt: number | null;
  source: string;
  channel: Channel;
  status: string | null;
  externalId: string | null;
  url: string | null;
  subjectPreview: string | null;
  hasFeedback: boolean;
  resolved: boolean | null;
  userAttributes: Record<string, unknown> | null;
  usedArticles: PublicArticle[];
  usedSubfolders: { id: string; title: string }[];
  events: StoredEvent[];
  /** internal: owning workspace */
  companyId: string;
  /** internal: the agent that handled the conversation */
  botId: string;
  /** internal: conversation metadata (generate answer merges `metadata.user_attributes` here too) */
  metadata: Record<string, unknown>;
  /** internal: false for provider-synced conversations the service never acted on (excluded from the list route) */
  touchedByService: boolean;
}

export interface PublicConversation extends Omit<Conversation, 'events' | 'companyId' | 'botId' | 'metadata' | 'touchedByService'> {
  events: PublicEvent[];
}

// ---------------------------------------------------------------------------
// Knowledge: articles, folders, agent-folder junctions

export interface Article {
  id: string;
  title: string;
  mainKnowledge: string;
  agentInstruction: string;
  questions: string[];
  keywords: string[];
  escalation: boolean;
  misc: Record<string, unknown>;
  active: boolean;
  public: boolean;
  parentFolderId: string;
  companyId: string;
  createdAt: string;
  updatedAt: string;
  version: number;
  isDraft: boolean;
  isDraftPublished: boolean;
  /** null on live articles and on drafts not made from a live article */
  originalArticleId: string | null;
  originalArticleVersion: number | null;
  createdBy: string;
  updatedBy: string;
  origin: string;
  /** internal: public help-center URL, used as `documentUrl` in PublicArticle references */
  documentUrl: string | null;
  /** internal, drafts only: the live article an earlier publish wrote, so publishing again updates it */
  publishedArticleId?: string;
}

/** Folder record fields are "not shown": chosen, see CHOICES.md. `botIds` is derived from junctions on output. */
export interface Folder {
  id: string;
  companyId: string;
  name: string;
  parentFolderId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface BotFolderJunction {
  id: string;
  companyId: string;
  botId: string;
  folderId: string;
  createdAt: string;
}

// ---------------------------------------------------------------------------
// Sources and ingestion jobs

export interface SourceRecord {
  id: string;
  companyId: string;
  source: SourceKind;
  url: string;
  title: string;
  success: boolean;
  changed: boolean;
  linkedJobStatus: JobStatus;
  linkedKnowledgeId: string | null;
  error: string; // '' when the latest run did not fail
  paragraphs: string[];
  createdAt: string;
  updatedAt: string;
  /** the linked job identifier (`job_...`) or null before the first queueing */
  linkedJobId: string | null;
  /** provider resource fields (from register) */
  externalId: string | null;
  mimeType: string | null;
  object: string | null;
  storageUrl: string | null;
}

export interface IngestionJob {
  id: string; // job_...
  documentId: string;
  status: JobStatus;
  /** internal */
  companyId: string;
  queuedAt: number; // epoch ms
  outcome: 'COMPLETED' | 'FAILED';
  failureError: string;
  resultParagraphs: string[];
  english: boolean;
  baser: boolean;
}

export interface NotesResource {
  externalId: string;
  title: string;
  originalUrl: string;
  mimeType: string;
  iconLink: string | null;
  object: 'page' | 'database';
}
export interface HelpcenterArticleNode {
  externalId: string;
  title: string;
  originalUrl: string;
  type: 'article';
}
export interface HelpcenterSectionNode {
  externalId: string;
  title: string;
  type: 'section';
  children: HelpcenterArticleNode[];
}
export interface HelpcenterCategoryNode {
  externalId: string;
  title: string;
  type: 'category';
  children: HelpcenterSectionNode[];
}
export interface WikiSpace {
  key: string;
  title: string;
  originalUrl: string;
  pages: { externalId: string; title: string; originalUrl: string }[];
}

export interface ProviderCatalog {
  notes: NotesResource[];
  helpcenter: HelpcenterCategoryNode[];
  wiki: WikiSpace[];
}

// ---------------------------------------------------------------------------
// Actions / attributes (hc-tools), data steps (api-function-configs), assignments

export type FieldType = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'date';
export type FieldSource = 'metadata' | 'jwt' | 'apiResponse';

export interface InputField {
  name: string;
  type: FieldType;
  required: boolean;
  path?: string;
  value?: unknown;
  source?: FieldSource;
  defaultValue?: unknown;
  autoBindPath?: string;
}

export interface OutputField {
  name: string;
  type: FieldType;
  /** null when not given (required only with source apiResponse) */
  path: string | null;
  sendToLlm: boolean;
  /** null when not given: the spec states no default */
  source: FieldSource | null;
  /** compact list form flag (`useInRulebooks`); default true */
  useInRulebooks?: boolean;
}

export interface HcTool {
  id: string;
  createdAt: string;
  updatedAt: string;
  companyId: string;
  name: string;
  description: string | null;
  alwaysGet: boolean;
  source?: string;
  inputSchema: InputField[];
  outputSchema: OutputField[];
  /** read-only via the API */
  builtInHandler: string | null;
}

export interface MaskedValue {
  hide: boolean;
  value: unknown;
}

export type ResponseMappingEntry = string | { path: string; dataType?: FieldType };

export interface DataStep {
  id: string;
  createdAt: string;
  updatedAt: string;
  companyId: string;
  name: string;
  toolId: string;
  stepNumber: number | null;
  /** null when the step was saved without one (the spec names only toolId and stepNumber) */
  url: string | null;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** stored unmasked; serialize through maskValues() */
  headers: Record<string, MaskedValue> | null;
  body: Record<string, MaskedValue> | null;
  responseMapping: Record<string, ResponseMappingEntry>;
}

export interface ToolAssignment {
  id: string;
  botId: string;
  toolId: string;
  companyId: string;
  channels: string[];
  createdAt: string;
}

// ---------------------------------------------------------------------------
// Intent rules

export interface RuleVersionItem {
  id: string;
  name: string;
  description: string;
  status: 'PUBLISHED' | 'DRAFT' | 'HISTORICAL';
  source: string | null;
  triggerType: string | null;
  botIds: string[];
  flowConfig: Record<string, unknown>;
  version: number;
  versionId: string;
  createdAt: string;
  updatedAt: string;
}

export interface RuleVersion {
  versionId: string;
  version: number;
  createdAt: string;
  createdBy: string;
  item: RuleVersionItem;
}

export interface IntentRule {
  id: string;
  companyId: string;
  name: string;
  /** `business` rules are rejected by the version routes with 400 */
  kind: 'intent' | 'business';
  activeVersionId: string | null;
  versions: RuleVersion[];
}

// ---------------------------------------------------------------------------
// Replays

export interface Replay {
  id: string;
  companyId: string;
  botId: string;
  source: 'replay';
  channel: Channel;
  status: string;
  createdAt: string;
  updatedAt: string;
  parentInteractionId: string;
  replay: { target_event_id: string; status: string; ml_models?: Record<string, string> };
}

// ---------------------------------------------------------------------------
// Refine (fix-review) sessions

export interface AnswerSnapshot {
  interactionId: string;
  eventId: string;
  originalEventId: string | null;
  content: string | null;
  role: string;
  type: string;
  createdAt: string;
}

export interface FixRootCause {
  failureStage: string;
  failureMode: string;
  reasoning: string;
  target: { kind: 'prompt' | 'kb_article' | 'rule'; operation?: 'create' | 'update'; [k: string]: unknown };
}

export interface FixChange {
  id: string;
  companyId: string;
  sessionId: string;
  iterationId: string;
  interactionId: string;
  targetEventId: string;
  rootCause: FixRootCause;
  changeType: 'update_prompt' | 'update_rule' | 'create_article' | 'update_article';
  draftPromptVersionId: string | null;
  draftArticleId: string | null;
  draftRuleVersionId: string | null;
  createdAt: string;
}

export type FixIterationStatus = 'queued' | 'generating_changes' | 'replaying' | 'ready' | 'no_change' | 'failed' | 'published' | 'superseded';

export interface FixIteration {
  id: string;
  companyId: string;
  sessionId: string;
  interactionId: string;
  targetEventId: string;
  previousIterationId: string | null;
  backgroundJobId: string | null;
  replayInteractionId: string | null;
  replayEventId: string | null;
  iterationNumber: number;
  status: FixIterationStatus;
  feedbackNote: string;
  summary: string | null;
  confidence: 'high' | 'medium' | 'low' | null;
  error: string | null;
  publishedAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
  createdAt: string;
  updatedAt: string;
  oldAnswerSnapshot: AnswerSnapshot | null;
  newAnswerSnapshot: AnswerSnapshot | null;
  changes: FixChange[];
}

export interface FixReviewSession {
  id: string;
  companyId: string;
  interactionId: string;
  targetEventId: string;
  targetUserEventId: string | null;
  status: 'active' | 'published' | 'closed';
  publishedIterationId: string | null;
  publishedAt: string | null;
  closedAt: string | null;
  closedReason: string | null;
  createdAt: string;
  updatedAt: string;
  originalAnswerSnapshot: AnswerSnapshot | null;
  /** derived on output from iterations[0]; stored iterations are kept ordered by iterationNumber descending */
  iterations: FixIteration[];
}

// ---------------------------------------------------------------------------
// Test suite: criteria groups, cases, test sets, runs

export interface Criterion {
  id: string;
  companyId: string;
  defaultCriterionId: string | null;
  name: string;
  type: string;
  condition: {
    scope: 'SCALAR';
    predicate: { left: { path: string; dataType: string }; operator: string; right: { value: unknown } };
  } | null;
  blocking: boolean;
  judgePrompt: string | null;
  passPrompt: string | null;
  failPrompt: string | null;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface CriteriaGroup {
  id: string;
  companyId: string;
  botId: string;
  name: string;
  criteria: Criterion[];
  revision: number;
  createdAt: string;
  updatedAt: string;
  /** `caseCount` and `linkedCases` are derived from the cases' `groupIds` on output */
  impactToken: string;
}

/** Test-case record fields are "not shown": chosen, see CHOICES.md. */
export interface TestCase {
  id: string;
  companyId: string;
  botId: string;
  name: string;
  sourceInteractionId: string | null;
  /** local criteria of the case */
  criteria: Criterion[];
  /** criteria groups the case is linked to */
  groupIds: string[];
  createdAt: string;
  updatedAt: string;
}

/** Test-set record fields are "not shown": chosen, see CHOICES.md. */
export interface TestSet {
  id: string;
  companyId: string;
  botId: string;
  name: string;
  caseIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface TestSetRun {
  id: string;
  testSetId: string;
  status: 'running' | 'completed' | 'failed';
  result: Record<string, unknown> | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  /** internal */
  companyId: string;
  ruleExecutionMode: 'reuse' | 'simulate' | 'execute';
  promptVersionId: string | null;
  startedAtMs: number;
}

export interface PromptVersion {
  id: string;
  companyId: string;
  botId: string;
  version: number;
  status: 'PUBLISHED' | 'DRAFT' | 'HISTORICAL';
  createdAt: string;
}

// ---------------------------------------------------------------------------
// Tags

/** Tag-group record fields are "not shown": chosen, see CHOICES.md. */
export interface TagGroup {
  id: string;
  companyId: string;
  name: string;
  description: string | null;
  /** workspace-owned custom group (tags can be created in it) vs built-in */
  custom: boolean;
  createdAt: string;
}

export interface Tag {
  id: string;
  createdAt: string;
  tagGroupId: string;
  tagName: string;
  tagDescription?: string;
}
