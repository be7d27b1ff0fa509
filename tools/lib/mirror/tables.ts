import { COLUMN_TYPES, type ColumnDefinition, type ColumnType, type TableDefinition } from '../../../src/mirror/schema.js';

/**
 * The workspace mirror's tables: few and plain, their columns named as the API names its fields,
 * times as UTC timestamps. What people's SQL reads (query_workspace) and svc://mirror/schema
 * describes; the last tables are the mirror's own bookkeeping (internal), which SQL cannot read.
 */

interface TableText {
  name: string;
  about: string;
  internal?: true;
  /** One column a line, in table order: its name, its type (a ColumnType) and what it holds, as svc://mirror/schema says it. */
  columns: string;
  /** Columns seldom asked for: svc://mirror/schema names them, query_workspace's description leaves them out. */
  rare?: readonly string[];
}

const COLUMN_LINE = /^(\w+)\s+(\w+)\s+(\S.*)$/;

/** Read once, when the catalog loads: a misspelt type, or a rare name that is no column, stops the server there. */
function table({ name, about, internal, columns: text, rare = [] }: TableText): TableDefinition {
  const columns = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line): ColumnDefinition => {
      const [, column, type, what] = COLUMN_LINE.exec(line) ?? [];
      if (!COLUMN_TYPES.includes(type as ColumnType)) throw new Error(`mirror table ${name}: "${line}" is not a column: name, type (${COLUMN_TYPES.join(', ')}), about`);
      return rare.includes(column) ? { name: column, type: type as ColumnType, about: what, rare: true } : { name: column, type: type as ColumnType, about: what };
    });
  const unknown = rare.filter((column) => !columns.some((entry) => entry.name === column));
  if (unknown.length) throw new Error(`mirror table ${name}: rare names no column of it: ${unknown.join(', ')}`);
  return { name, about, ...(internal && { internal }), columns };
}

export const CONVERSATIONS = table({
  name: 'conversations',
  about: 'one row per conversation',
  columns: `
    id                 text   conversation id (interactionId)
    botId              text   the agent it was listed under (agents.id)
    createdAt          time   when the service stored it; windows filter on this
    externalCreatedAt  time   provider-side time
    source             text   api, widget, ui, testsuite, replay or a platform name
    channel            text   chat or email
    status             text   status text
    externalId         text   external system id
    url                text   link back
    subjectPreview     text   subject or preview
    hasFeedback        flag   feedback attached
    resolved           flag   resolution flag
    userAttributes     json   attributes captured on the conversation`,
  rare: ['externalCreatedAt', 'status', 'externalId', 'url', 'hasFeedback', 'userAttributes'],
});

export const EVENTS = table({
  name: 'events',
  about: 'the messages and actions of each conversation',
  columns: `
    id                 text    event id (eventId)
    interactionId      text    conversations.id
    createdAt          time    when the service stored it
    role               text    user (customer), agent (human), svcbot (the AI agent), otherbot
    type               text    message, internalnote, no_reply, silent_escalation, debounce, widget_form
    message            text    message text
    externalId         text    provider-side message id
    externalCreatedAt  time    provider-side time
    csatRating         number  CSAT as stored, 0 included
    feedback           text    free-text feedback note
    approved           flag    true thumbs up, false thumbs down, null unrated
    resolved           flag    resolution of a negatively rated event
    tags               json    [{id, name, groupId}]; names: json_extract_string(tags, '$[*].name')`,
  rare: ['externalId', 'externalCreatedAt'],
});

export const USED_ARTICLES = table({
  name: 'used_articles',
  about: 'articles retrieved: per event, and per conversation (eventId null)',
  columns: `
    interactionId  text  conversations.id
    eventId        text  events.id, or null for the conversation as a whole
    articleId      text  articles.id
    title          text  title when used
    documentUrl    text  public URL`,
  rare: ['documentUrl'],
});

export const AGENTS = table({
  name: 'agents',
  about: 'the workspace agents (list_agents)',
  columns: `
    id      text  botId
    name    text  agent name
    record  json  every field the API gave`,
  rare: ['record'],
});

/** What an article and each version of it hold alike. */
const ARTICLE_COLUMNS = `
    id                      text     article id
    isDraft                 flag     a draft
    title                   text     title
    mainKnowledge           text     main body
    agentInstruction        text     extra instructions for the agent
    questions               texts    question prompts
    keywords                texts    keywords
    version                 integer  article version
    updatedAt               time     last update
    updatedBy               text     user id of the last update`;
const RARE_ARTICLE_COLUMNS = ['agentInstruction', 'updatedBy'];

export const ARTICLES = table({
  name: 'articles',
  about: 'live articles and drafts as last read',
  columns: `${ARTICLE_COLUMNS}
    escalation              flag     escalation marker
    active                  flag     active
    public                  flag     public in the help center
    parentFolderId          text     folders.id
    createdAt               time     creation
    createdBy               text     user id of the creator
    isDraftPublished        flag     a draft that was published
    originalArticleId       text     the live article a draft was made from
    originalArticleVersion  integer  its version when the draft was made
    origin                  text     origin marker, e.g. API_CREATED
    misc                    json     internal metadata`,
  rare: [...RARE_ARTICLE_COLUMNS, 'escalation', 'active', 'public', 'createdBy', 'isDraftPublished', 'originalArticleVersion', 'origin', 'misc'],
});

export const ARTICLE_VERSIONS = table({
  name: 'article_versions',
  about: 'each version of an article or draft the mirror has seen',
  columns: `${ARTICLE_COLUMNS}
    seenAt                  time     when the mirror first read this version`,
  rare: RARE_ARTICLE_COLUMNS,
});

export const FOLDERS = table({
  name: 'folders',
  about: 'knowledge-base folders and their agents',
  columns: `
    id              text   folder id
    name            text   name
    parentFolderId  text   folders.id of the parent
    botIds          texts  agents that answer from it
    record          json   every field the API gave`,
  rare: ['record'],
});

export const ACTIONS = table({
  name: 'actions',
  about: 'actions (alwaysGet false) and attributes (alwaysGet true)',
  columns: `
    id           text   action or attribute id (toolId)
    name         text   name
    description  text   description
    alwaysGet    flag   an attribute
    source       text   ui, api, widget or an integration
    botIds       texts  agents it is assigned to
    fields       json   its fields
    createdAt    time   creation
    updatedAt    time   last update`,
  rare: ['description', 'fields'],
});

export const IDS_SEEN = table({
  name: 'ids_seen',
  about: 'ids of kinds the API cannot list, with where they were seen',
  columns: `
    kind    text  source, rule, rule_version, replay, criteria_group, test_set, tag_group
    id      text  the id (rule versions as ruleId/versionId)
    seenIn  text  the tool, or sync, that returned it
    seenAt  time  when it was last seen`,
  rare: ['seenIn'],
});

/** What was read of each agent's conversations and when: one row per window read whole. */
export const SYNC_WINDOWS = table({
  name: 'sync_windows',
  about: 'windows of createdAt read whole, per agent',
  internal: true,
  columns: `
    botId     text  agent
    since     time  window start
    until     time  window end
    syncedAt  time  when its first page was asked for`,
});

/** One row per sync: what it read and cost. */
export const SYNC_RUNS = table({
  name: 'sync_runs',
  about: 'each sync',
  internal: true,
  columns: `
    startedAt      time     start
    finishedAt     time     end
    since          time     window asked
    until          time     window end
    requests       integer  requests spent
    conversations  integer  conversations read
    outcome        text     complete, cancelled or failed: reason`,
});

/**
 * Each conversation's figures, as conversation_stats counts them (tallyOf in tools/lib/stats.ts, the
 * same code a scan of the API runs), kept as it is read, so that a year's stats sum 100,000 rows
 * instead of joining their events. Kept true by every change to the conversation.
 */
export const CONVERSATION_FIGURES = table({
  name: 'conversation_figures',
  about: "each conversation's figures",
  internal: true,
  columns: `
    id                  text     conversations.id
    answers             integer  svcbot messages
    thumbsUp            integer  svcbot events approved
    thumbsDown          integer  svcbot events disapproved
    unresolvedNegative  integer  of those, not resolved
    csatCount           integer  CSAT ratings
    csatSum             number   their sum
    escalations         integer  silent escalations`,
});

export const CSAT_RATINGS = table({
  name: 'csat_ratings',
  about: "each conversation's CSAT ratings, by value",
  internal: true,
  columns: `
    interactionId  text     conversations.id
    rating         number   value
    times          integer  how many`,
});

export const NEGATIVE_ARTICLES = table({
  name: 'negative_articles',
  about: "articles each conversation's thumbs-down answers used",
  internal: true,
  columns: `
    interactionId  text     conversations.id
    articleId      text     articles.id
    title          text     title
    times          integer  how many`,
});
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
