import type { Change, Row, TableDefinition, Value } from '../../../src/mirror/schema.js';
import { isRecord } from '../../../src/json.js';
import { tallyOf } from '../stats.js';
import { CONVERSATION_FIGURES, CONVERSATIONS, CSAT_RATINGS, EVENTS, IDS_SEEN, NEGATIVE_ARTICLES, USED_ARTICLES } from './tables.js';

/**
 * API records as the mirror's rows: each table's columns read from the field of the same name, times
 * (epoch ms, or ISO text for the records that use it) as epoch ms. What is secret or short-lived is
 * never kept: signed attachment URLs are not columns, and no route the mirror reads returns a key or a
 * data step's value.
 */

type Record_ = Record<string, unknown>;

/** Epoch ms from the API's epoch-ms numbers or ISO text; null for anything else. */
export function timeOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

function valueFor(type: TableDefinition['columns'][number]['type'], value: unknown): Value {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'time':
      return timeOf(value);
    case 'flag':
      return typeof value === 'boolean' ? value : null;
    case 'number':
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    case 'texts':
      return Array.isArray(value) ? value.map(String) : null;
    case 'json':
      return value as Value;
    case 'text':
      return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
  }
}

/** A record as a row of `table`, reading each column from the field of the same name (or from `extra`). */
export function rowOf(table: TableDefinition, record: Record_, extra: Record_ = {}): Row {
  return table.columns.map((column) => valueFor(column.type, column.name in extra ? extra[column.name] : record[column.name]));
}

const list = (value: unknown): Record_[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/** One listed page of an agent's conversations, as the changes that put it in the mirror. */
export function conversationChanges(botId: string, conversations: Record_[], seenAt: number): Change[] {
  const ids = conversations.map((conversation) => String(conversation.id));
  const events: Row[] = [];
  const used: Row[] = [];
  const tagGroups = new Set<string>();
  for (const conversation of conversations) {
    const interactionId = String(conversation.id);
    for (const article of list(conversation.usedArticles)) used.push(rowOf(USED_ARTICLES, article, { interactionId, eventId: null, articleId: article.id }));
    for (const event of list(conversation.events)) {
      events.push(rowOf(EVENTS, event, { interactionId }));
      for (const article of list(event.usedArticles)) used.push(rowOf(USED_ARTICLES, article, { interactionId, eventId: event.id, articleId: article.id }));
      for (const tag of list(event.tags)) if (typeof tag.groupId === 'string') tagGroups.add(tag.groupId);
    }
  }
  const changes: Change[] = [
    { put: CONVERSATIONS.name, key: 'id', keys: ids, rows: conversations.map((conversation) => rowOf(CONVERSATIONS, conversation, { botId })) },
    { put: EVENTS.name, key: 'interactionId', keys: ids, rows: events },
    { put: USED_ARTICLES.name, key: 'interactionId', keys: ids, rows: used },
    ...figureChanges(conversations),
  ];
  if (tagGroups.size) changes.push(...idsSeen('tag_group', [...tagGroups], 'sync', seenAt));
  return changes;
}

/** Conversations gone from a window the API listed whole: they, their events, their articles and their figures. */
export function conversationsGone(ids: readonly string[]): Change[] {
  if (ids.length === 0) return [];
  return [
    { delete: CONVERSATIONS.name, where: { id: { in: ids } } },
    { delete: CONVERSATION_FIGURES.name, where: { id: { in: ids } } },
    ...[EVENTS, USED_ARTICLES, CSAT_RATINGS, NEGATIVE_ARTICLES].map((table): Change => ({ delete: table.name, where: { interactionId: { in: ids } } })),
  ];
}

/** Each conversation's figures, counted by the code a scan of the API counts with, replacing those held. */
export function figureChanges(conversations: Record_[]): Change[] {
  const ids = conversations.map((conversation) => String(conversation.id));
  const ratings: Row[] = [];
  const articles: Row[] = [];
  const figures = conversations.map((conversation) => {
    const interactionId = String(conversation.id);
    const tally = tallyOf(conversation);
    for (const [rating, times] of tally.csatRatings) ratings.push([interactionId, rating, times]);
    for (const article of tally.negativeArticles.values()) articles.push([interactionId, article.id, article.title, article.count]);
    return rowOf(CONVERSATION_FIGURES, { ...tally, id: interactionId });
  });
  return [
    { put: CONVERSATION_FIGURES.name, key: 'id', keys: ids, rows: figures },
    { put: CSAT_RATINGS.name, key: 'interactionId', keys: ids, rows: ratings },
    { put: NEGATIVE_ARTICLES.name, key: 'interactionId', keys: ids, rows: articles },
  ];
}

/** A fresh listing of a small table (agents, folders, actions), replacing what it held. */
export function listed(table: TableDefinition, records: Record_[], extra: (record: Record_) => Record_ = () => ({})): Change {
  return { replace: table.name, rows: records.map((record) => rowOf(table, record, extra(record))) };
}

/** ids_seen rows for ids of one kind, replacing the earlier sighting of each. */
export function idsSeen(kind: string, ids: readonly string[], seenIn: string, seenAt: number): Change[] {
  if (ids.length === 0) return [];
  return [
    { delete: IDS_SEEN.name, where: { kind, id: { in: ids } } },
    { insert: IDS_SEEN.name, rows: ids.map((id) => rowOf(IDS_SEEN, { kind, id, seenIn, seenAt })) },
  ];
}
