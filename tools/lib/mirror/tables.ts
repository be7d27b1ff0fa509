import type { ColumnDefinition, ColumnType, TableDefinition } from '../../../src/mirror/schema.js';

/**
 * The workspace mirror's tables: few and plain, their columns named as the API names its fields,
 * times as UTC timestamps. What people's SQL reads (query_workspace) and svc://mirror/schema
 * describes; the last two tables are the mirror's own bookkeeping, which SQL cannot read.
 */

const column = (name: string, type: ColumnType, about: string): ColumnDefinition => ({ name, type, about });
const rare = (name: string, type: ColumnType, about: string): ColumnDefinition => ({ name, type, about, rare: true });

export const CONVERSATIONS: TableDefinition = {
  name: 'conversations',
  about: 'one row per conversation',
  columns: [
    column('id', 'text', 'conversation id (interactionId)'),
    column('botId', 'text', 'the agent it was listed under (agents.id)'),
    column('createdAt', 'time', 'when the service stored it; windows filter on this'),
    rare('externalCreatedAt', 'time', 'provider-side time'),
    column('source', 'text', 'api, widget, ui, testsuite, replay or a platform name'),
    column('channel', 'text', 'chat or email'),
    rare('status', 'text', 'status text'),
    rare('externalId', 'text', 'external system id'),
    rare('url', 'text', 'link back'),
    column('subjectPreview', 'text', 'subject or preview'),
    rare('hasFeedback', 'flag', 'feedback attached'),
    column('resolved', 'flag', 'resolution flag'),
    rare('userAttributes', 'json', 'attributes captured on the conversation'),
  ],
};

export const EVENTS: TableDefinition = {
  name: 'events',
  about: 'the messages and actions of each conversation',
  columns: [
    column('id', 'text', 'event id (eventId)'),
    column('interactionId', 'text', 'conversations.id'),
    column('createdAt', 'time', 'when the service stored it'),
    column('role', 'text', 'user (customer), agent (human), svcbot (the AI agent), otherbot'),
    column('type', 'text', 'message, internalnote, no_reply, silent_escalation, debounce, widget_form'),
    column('message', 'text', 'message text'),
    rare('externalId', 'text', 'provider-side message id'),
    rare('externalCreatedAt', 'time', 'provider-side time'),
    column('csatRating', 'number', 'CSAT as stored, 0 included'),
    column('feedback', 'text', 'free-text feedback note'),
    column('approved', 'flag', 'true thumbs up, false thumbs down, null unrated'),
    column('resolved', 'flag', 'resolution of a negatively rated event'),
    column('tags', 'json', "[{id, name, groupId}]; names: json_extract_string(tags, '$[*].name')"),
  ],
};

export const USED_ARTICLES: TableDefinition = {
  name: 'used_articles',
  about: 'articles retrieved: per event, and per conversation (eventId null)',
  columns: [
    column('interactionId', 'text', 'conversations.id'),
    column('eventId', 'text', 'events.id, or null for the conversation as a whole'),
    column('articleId', 'text', 'articles.id'),
    column('title', 'text', 'title when used'),
    rare('documentUrl', 'text', 'public URL'),
  ],
};

export const AGENTS: TableDefinition = {
  name: 'agents',
  about: 'the workspace agents (list_agents)',
  columns: [column('id', 'text', 'botId'), column('name', 'text', 'agent name'), rare('record', 'json', 'every field the API gave')],
};

const ARTICLE_COLUMNS: ColumnDefinition[] = [
  column('id', 'text', 'article id'),
  column('isDraft', 'flag', 'a draft'),
  column('title', 'text', 'title'),
  column('mainKnowledge', 'text', 'main body'),
  rare('agentInstruction', 'text', 'extra instructions for the agent'),
  column('questions', 'texts', 'question prompts'),
  column('keywords', 'texts', 'keywords'),
  column('version', 'integer', 'article version'),
  column('updatedAt', 'time', 'last update'),
  rare('updatedBy', 'text', 'user id of the last update'),
];

export const ARTICLES: TableDefinition = {
  name: 'articles',
  about: 'live articles and drafts as last read',
  columns: [
    ...ARTICLE_COLUMNS,
    rare('escalation', 'flag', 'escalation marker'),
    rare('active', 'flag', 'active'),
    rare('public', 'flag', 'public in the help center'),
    column('parentFolderId', 'text', 'folders.id'),
    column('createdAt', 'time', 'creation'),
    rare('createdBy', 'text', 'user id of the creator'),
    rare('isDraftPublished', 'flag', 'a draft that was published'),
    column('originalArticleId', 'text', 'the live article a draft was made from'),
    rare('originalArticleVersion', 'integer', 'its version when the draft was made'),
    rare('origin', 'text', 'origin marker, e.g. API_CREATED'),
    rare('misc', 'json', 'internal metadata'),
  ],
};

export const ARTICLE_VERSIONS: TableDefinition = {
  name: 'article_versions',
  about: 'each version of an article or draft the mirror has seen',
  columns: [...ARTICLE_COLUMNS, column('seenAt', 'time', 'when the mirror first read this version')],
};

export const FOLDERS: TableDefinition = {
  name: 'folders',
  about: 'knowledge-base folders and their agents',
  columns: [
    column('id', 'text', 'folder id'),
    column('name', 'text', 'name'),
    column('parentFolderId', 'text', 'folders.id of the parent'),
    column('botIds', 'texts', 'agents that answer from it'),
    rare('record', 'json', 'every field the API gave'),
  ],
};

export const ACTIONS: TableDefinition = {
  name: 'actions',
  about: 'actions (alwaysGet false) and attributes (alwaysGet true)',
  columns: [
    column('id', 'text', 'action or attribute id (toolId)'),
    column('name', 'text', 'name'),
    rare('description', 'text', 'description'),
    column('alwaysGet', 'flag', 'an attribute'),
    column('source', 'text', 'ui, api, widget or an integration'),
    column('botIds', 'texts', 'agents it is assigned to'),
    rare('fields', 'json', 'its fields'),
    column('createdAt', 'time', 'creation'),
    column('updatedAt', 'time', 'last update'),
  ],
};

export const IDS_SEEN: TableDefinition = {
  name: 'ids_seen',
  about: 'ids of kinds the API cannot list, with where they were seen',
  columns: [
    column('kind', 'text', 'source, rule, rule_version, replay, criteria_group, test_set, tag_group'),
    column('id', 'text', 'the id (rule versions as ruleId/versionId)'),
    rare('seenIn', 'text', 'the tool, or sync, that returned it'),
    column('seenAt', 'time', 'when it was last seen'),
  ],
};

/** What was read of each agent's conversations and when: one row per window read whole. */
export const SYNC_WINDOWS: TableDefinition = {
  name: 'sync_windows',
  about: 'windows of createdAt read whole, per agent',
  internal: true,
  columns: [column('botId', 'text', 'agent'), column('since', 'time', 'window start'), column('until', 'time', 'window end'), column('syncedAt', 'time', 'when its first page was asked for')],
};

/** One row per sync: what it read and cost. */
export const SYNC_RUNS: TableDefinition = {
  name: 'sync_runs',
  about: 'each sync',
  internal: true,
  columns: [
    column('startedAt', 'time', 'start'),
    column('finishedAt', 'time', 'end'),
    column('since', 'time', 'window asked'),
    column('until', 'time', 'window end'),
    column('requests', 'integer', 'requests spent'),
    column('conversations', 'integer', 'conversations read'),
    column('outcome', 'text', 'complete, cancelled or failed: reason'),
  ],
};

/**
 * Each conversation's figures, as conversation_stats counts them (tallyOf in tools/lib/stats.ts, the
 * same code a scan of the API runs), kept as it is read, so that a year's stats sum 100,000 rows
 * instead of joining their events. Kept true by every change to the conversation.
 */
export const CONVERSATION_FIGURES: TableDefinition = {
  name: 'conversation_figures',
  about: "each conversation's figures",
  internal: true,
  columns: [
    column('id', 'text', 'conversations.id'),
    column('answers', 'integer', 'svcbot messages'),
    column('thumbsUp', 'integer', 'svcbot events approved'),
    column('thumbsDown', 'integer', 'svcbot events disapproved'),
    column('unresolvedNegative', 'integer', 'of those, not resolved'),
    column('csatCount', 'integer', 'CSAT ratings'),
    column('csatSum', 'number', 'their sum'),
    column('escalations', 'integer', 'silent escalations'),
  ],
};

export const CSAT_RATINGS: TableDefinition = {
  name: 'csat_ratings',
  about: "each conversation's CSAT ratings, by value",
  internal: true,
  columns: [column('interactionId', 'text', 'conversations.id'), column('rating', 'number', 'value'), column('times', 'integer', 'how many')],
};

export const NEGATIVE_ARTICLES: TableDefinition = {
  name: 'negative_articles',
  about: "articles each conversation's thumbs-down answers used",
  internal: true,
  columns: [column('interactionId', 'text', 'conversations.id'), column('articleId', 'text', 'articles.id'), column('title', 'text', 'title'), column('times', 'integer', 'how many')],
};

export const MIRROR_TABLES: TableDefinition[] = [
  CONVERSATIONS,
  EVENTS,
  USED_ARTICLES,
  AGENTS,
  ARTICLES,
  ARTICLE_VERSIONS,
  FOLDERS,
  ACTIONS,
  IDS_SEEN,
  SYNC_WINDOWS,
  SYNC_RUNS,
  CONVERSATION_FIGURES,
  CSAT_RATINGS,
  NEGATIVE_ARTICLES,
];

/** svc://mirror/schema: the tables people's SQL reads, one line each. */
export function describeSchema(): string {
  const lines = ['# Workspace mirror tables', 'Times are UTC TIMESTAMPs; json columns hold the API value as JSON; texts are VARCHAR[].', ''];
  for (const table of MIRROR_TABLES.filter((candidate) => !candidate.internal)) {
    lines.push(`## ${table.name}: ${table.about}`);
    for (const { name, type, about } of table.columns) lines.push(`- ${name} (${type}): ${about}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** The tables in one line each, for query_workspace's description: every listed token costs every user. */
export function compactSchema(): string {
  return MIRROR_TABLES.filter((table) => !table.internal)
    .map(
      (table) =>
        `${table.name}(${table.columns
          .filter((entry) => !entry.rare)
          .map((entry) => entry.name)
          .join(',')})`,
    )
    .join('; ');
}
