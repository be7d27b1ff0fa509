/**
 * Conversations: list (export), generate answer, event feedback, delete.
 */
import { badRequest, internalError, notAcceptable } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { defineRoutes, type RouteRequest } from '../router.js';
import { addUsedArticles, buildReply } from '../reply.js';
import {
  DAY_MS, articleRef, computeHasFeedback, newConversation, newEvent, subjectOf, computeResolved, findInWorkspace, latestMessageAt, toPublicConversation, toPublicEvent,
} from '../state.js';
import type { Channel, Conversation, StoredEvent } from '../types.js';
import {
  CONTROL_CHARS, Violations, isPlainObject, objectBody, oneOf, queryInt, queryList, requireString,
} from '../validate.js';

/** Source values: the six named ones plus the twelve third-party platform names chosen for the sandbox (CHOICES.md). */
export const SOURCE_VALUES = [
  'api', 'widget', 'ui', 'standalone', 'testsuite', 'replay',
  'zendesk', 'intercom', 'freshdesk', 'salesforce', 'hubspot', 'front',
  'gorgias', 'helpscout', 'kustomer', 'gladly', 'slack', 'whatsapp',
] as const;
export const CHANNEL_VALUES = ['chat', 'email'] as const;
export const ROLE_VALUES = ['user', 'agent', 'svcbot', 'otherbot'] as const;
export const DIRECTION_VALUES = ['next', 'previous'] as const;
export const DEFAULT_WINDOW_MS = 7 * DAY_MS;
export const MAX_WINDOW_MS = 90 * DAY_MS;
export const MAX_TEXT_FILTER = 100;
/** Name chosen for the CSAT filter (spec: "its parameter name: not shown"). */
export const CSAT_PARAM = 'csat';

function textFilter(v: Violations, name: string, raw: string | null): string | undefined {
  if (raw === null) return undefined;
  const trimmed = raw.trim();
  if (trimmed === '') {
    v.add(`${name} should not be empty`);
    return undefined;
  }
  // The spec's limit is on non-blank characters: spaces between words do not count.
  if (trimmed.replace(/\s/g, '').length > MAX_TEXT_FILTER) v.add(`${name} must be shorter than or equal to ${MAX_TEXT_FILTER} characters`);
  if (/[%_]/.test(raw)) v.add(`${name} must not contain % or _`);
  if (CONTROL_CHARS.test(raw)) v.add(`${name} must not contain control characters`);
  return trimmed.toLowerCase();
}

interface SortKey {
  t: number;
  id: string;
}
const keyOf = (c: Conversation): SortKey => ({ t: latestMessageAt(c), id: c.id });
/** newest first: a before b when a is newer */
const newerThan = (a: SortKey, b: SortKey) => a.t > b.t || (a.t === b.t && a.id > b.id);

function listConversations(req: RouteRequest) {
  const { query: q, workspace: ws, state } = req;
  const v = new Violations();
  const since = queryInt(v, 'since', q.get('since'));
  const until = queryInt(v, 'until', q.get('until'));
  const limit = queryInt(v, 'limit', q.get('limit'), { min: 1, max: 100 }) ?? 50;
  const rawCursor = q.get('cursor');
  const cursor = rawCursor === null || rawCursor.trim() === '' ? undefined : rawCursor.trim();
  const direction = oneOf(v, 'direction', q.get('direction') ?? undefined, DIRECTION_VALUES) ?? 'next';
  const botId = q.get('botId') ?? undefined;
  if (botId !== undefined && !isUuid(botId)) v.add('botId must be a UUID');
  const sources = queryList(q, 'source');
  if (sources?.some((s) => !(SOURCE_VALUES as readonly string[]).includes(s))) {
    v.add(`each value in source must be one of the following values: ${SOURCE_VALUES.join(', ')}`);
  }
  const channels = queryList(q, 'channel');
  if (channels?.some((s) => !(CHANNEL_VALUES as readonly string[]).includes(s))) {
    v.add(`each value in channel must be one of the following values: ${CHANNEL_VALUES.join(', ')}`);
  }
  const question = textFilter(v, 'question', q.get('question'));
  const answer = textFilter(v, 'answer', q.get('answer'));
  const csat = queryInt(v, CSAT_PARAM, q.get(CSAT_PARAM), { min: 0, max: 5 });
  v.throwIfAny();

  const untilMs = until ?? req.now;
  const sinceMs = since ?? req.now - DEFAULT_WINDOW_MS;
  if (sinceMs >= untilMs) throw badRequest(['since must be earlier than until']);
  if (untilMs - sinceMs > MAX_WINDOW_MS) throw badRequest(['the window between since and until must not exceed 90 days']);

  if (botId !== undefined) findInWorkspace(state, ws, 'bots', botId); // 403 for another workspace's agent

  let cursorKey: SortKey | undefined;
  if (cursor !== undefined) {
    const c = findInWorkspace(state, ws, 'conversations', cursor);
    if (!c) throw badRequest(['cursor must be the id of a conversation in this workspace']);
    cursorKey = keyOf(c);
  }

  const matches = [...ws.conversations.values()].filter((c) => {
    if (!c.touchedByService) return false;
    if (c.createdAt < sinceMs || c.createdAt > untilMs) return false;
    if (botId !== undefined && c.botId !== botId) return false;
    if (sources && sources.length && !sources.includes(c.source)) return false;
    if (channels && channels.length && !channels.includes(c.channel)) return false;
    if (csat !== undefined && !c.events.some((e) => e.csatRating === csat)) return false;
    if (question !== undefined && !c.events.some((e) => e.role === 'user' && e.message?.toLowerCase().includes(question))) return false;
    if (answer !== undefined && !c.events.some((e) => e.role === 'svcbot' && e.message?.toLowerCase().includes(answer))) return false;
    return true;
  });
  const sorted = matches
    .map((c) => ({ c, k: keyOf(c) }))
    .sort((a, b) => (newerThan(a.k, b.k) ? -1 : newerThan(b.k, a.k) ? 1 : 0));

  let page: typeof sorted;
  let hasMore: boolean;
  if (!cursorKey || direction === 'next') {
    const older = cursorKey ? sorted.filter((x) => newerThan(cursorKey!, x.k)) : sorted;
    page = older.slice(0, limit);
    hasMore = older.length > limit;
  } else {
    const newer = sorted.filter((x) => newerThan(x.k, cursorKey!));
    page = newer.slice(Math.max(0, newer.length - limit));
    hasMore = newer.length > limit;
  }
  const first = page[0];
  const last = page[page.length - 1];
  const olderExist = last ? sorted.some((x) => newerThan(last.k, x.k)) : false;
  const newerExist = first ? sorted.some((x) => newerThan(x.k, first.k)) : false;
  return {
    body: {
      interactions: page.map((x) => toPublicConversation(state, x.c)),
      hasMore,
      nextCursor: last && olderExist ? last.c.id : null,
      prevCursor: first && newerExist && cursorKey ? first.c.id : null,
    },
  };
}


function generateAnswer(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const body = objectBody(req.body);
  const v = new Violations();
  const content = requireString(v, 'content', body.content);
  const role = oneOf(v, 'role', body.role, ROLE_VALUES) ?? 'user';
  const interactionId = body.interactionId;
  const botId = body.botId;
  if (interactionId !== undefined && interactionId !== null && typeof interactionId !== 'string') v.add('interactionId must be a string');
  if (botId !== undefined && botId !== null && typeof botId !== 'string') v.add('botId must be a string');
  const hasInteraction = typeof interactionId === 'string' && interactionId.trim() !== '';
  const hasBot = typeof botId === 'string' && botId.trim() !== '';
  if (!hasInteraction && !hasBot && interactionId == null && botId == null) v.add('botId is required when interactionId is omitted');
  else if (!hasInteraction && !hasBot) v.add('botId should not be empty when interactionId is omitted');
  let channel: Channel | undefined;
  let userAttributes: Record<string, unknown> | undefined;
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isPlainObject(body.metadata)) v.add('metadata must be an object');
    else {
      channel = oneOf(v, 'metadata.channel', body.metadata.channel, CHANNEL_VALUES);
      const ua = body.metadata.user_attributes;
      if (ua !== undefined && ua !== null) {
        if (!isPlainObject(ua)) v.add('metadata.user_attributes must be an object');
        else userAttributes = ua;
      }
    }
  }
  v.throwIfAny();

  const at = req.now;
  let conv: Conversation | undefined;
  if (hasInteraction) {
    conv = findInWorkspace(state, ws, 'conversations', interactionId as string);
    if (!conv) throw internalError(); // spec: unknown interactionId surfaces as 500
  } else {
    const bot = findInWorkspace(state, ws, 'bots', botId as string);
    if (!bot) throw internalError(); // spec: unknown botId surfaces as 500
    conv = newConversation({
      id: newId(),
      createdAt: at,
      source: 'api',
      channel: channel ?? 'chat',
      status: 'Open',
      subjectPreview: subjectOf(content!),
      companyId: ws.id,
      botId: bot.id,
    });
    ws.conversations.set(conv.id, conv);
  }
  if (channel) conv.channel = channel;
  if (userAttributes) {
    const prev = isPlainObject(conv.metadata.user_attributes) ? conv.metadata.user_attributes : {};
    conv.metadata.user_attributes = { ...prev, ...userAttributes };
    conv.userAttributes = { ...(conv.userAttributes ?? {}), ...userAttributes };
  }
  conv.touchedByService = true;

  const incoming = newEvent(conv.id, newId(), at, role, 'message', content!);
  conv.events.push(incoming);
  const created: StoredEvent[] = [incoming];
  if (role === 'user') {
    const reply = buildReply(ws, conv.botId, content!);
    const bot = newEvent(conv.id, newId(), at, 'svcbot', reply.type, reply.message);
    bot.usedArticles = reply.used.map(articleRef);
    addUsedArticles(ws, conv, reply.used);
    conv.events.push(bot);
    created.push(bot);
    conv.status = reply.type === 'silent_escalation' ? 'Escalated to a human agent' : 'Open';
  }
  return { body: created.map((e) => toPublicEvent(state, e)) };
}

function feedback(req: RouteRequest) {
  const { workspace: ws } = req;
  const id = req.params.id;
  const body = objectBody(req.body);
  const v = new Violations();
  if (id.trim() === '') v.add('id should not be empty');
  const eventId = requireString(v, 'eventId', body.eventId);
  const hasApproved = Object.prototype.hasOwnProperty.call(body, 'approved') && body.approved !== undefined;
  if (hasApproved && body.approved !== null && typeof body.approved !== 'boolean') v.add('approved must be a boolean or null');
  v.throwIfAny();

  // spec: conversation or event inaccessible (including another workspace's) -> 406
  const conv = ws.conversations.get(id);
  if (!conv) throw notAcceptable('Interaction not found or not accessible');
  if (conv.events.length === 0) throw notAcceptable('Interaction has no events');
  const event = conv.events.find((e) => e.id === eventId);
  if (!event) throw notAcceptable('Event does not belong to the interaction');

  if (hasApproved) {
    const approved = body.approved as boolean | null;
    if (approved === false) {
      if (event.approved !== false) event.resolved = false; // newly negatively rated: unresolved
    } else {
      event.resolved = null; // thumbs up or cleared
    }
    event.approved = approved;
  }
  conv.hasFeedback = computeHasFeedback(conv);
  conv.resolved = computeResolved(conv);
  return { body: { success: true } };
}

function deleteConversation(req: RouteRequest) {
  const conv = req.workspace.conversations.get(req.params.id);
  if (conv) req.workspace.conversations.delete(conv.id);
  return { body: { success: true } };
}

export const routes = defineRoutes([
  { method: 'GET', path: '/v2/hc-interactions/public', scope: 'read', handler: listConversations },
  { method: 'POST', path: '/v2/hc-interactions/events/public', scope: 'write', handler: generateAnswer },
  { method: 'POST', path: '/v2/hc-interactions/{id}/feedback/public', scope: 'write', handler: feedback },
  { method: 'DELETE', path: '/v2/hc-interactions/{id}/public', scope: 'write', handler: deleteConversation },
]);

