/**
 * Conversations: list (export), generate answer, event feedback, delete.
 */
import type { SortKey } from '../conversation-store.js';
import { badRequest, forbiddenWorkspace, internalError, notAcceptable } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { addUsedArticles, buildReply } from '../reply.js';
import { DAY_MS, articleRef, computeHasFeedback, newConversation, newEvent, subjectOf, computeResolved, findInWorkspace, ownerOf, toPublicConversation, toPublicEvent } from '../state.js';
import type { Channel, Conversation, StoredEvent } from '../types.js';
import { CONTROL_CHARS, Violations, isPlainObject, objectBody, oneOf, queryInt, queryList, requireString } from '../validate.js';

/** Source values: the six named ones plus the twelve third-party platform names chosen for the sandbox (CHOICES.md). */
export const SOURCE_VALUES = [
  'api',
  'widget',
  'ui',
  'standalone',
  'testsuite',
  'replay',
  'zendesk',
  'intercom',
  'freshdesk',
  'salesforce',
  'hubspot',
  'front',
  'gorgias',
  'helpscout',
  'kustomer',
  'gladly',
  'slack',
  'whatsapp',
] as const;
export const CHANNEL_VALUES = ['chat', 'email'] as const;
export const ROLE_VALUES = ['user', 'agent', 'svcbot', 'otherbot'] as const;
export const DIRECTION_VALUES = ['next', 'previous'] as const;
export const DEFAULT_WINDOW_MS = 7 * DAY_MS;
export const MAX_WINDOW_MS = 90 * DAY_MS;
export const MAX_TEXT_FILTER = 100;
/** Name chosen for the CSAT filter (spec: "its parameter name: not shown"). */
export const CSAT_PARAM = 'csat';

/** Characters that are not blank, counted as code points (an emoji is one). */
function nonBlankLength(text: string): number {
  let count = 0;
  for (const char of text) if (!/\s/.test(char)) count++;
  return count;
}

/** The spec sets a maximum and forbidden characters, no minimum: blank text filters as the empty substring, which every message holds. */
function textFilter(v: Violations, name: string, raw: string | null): string | undefined {
  if (raw === null) return undefined;
  const trimmed = raw.trim();
  // The spec's limit is on non-blank characters: spaces between words do not count.
  if (nonBlankLength(trimmed) > MAX_TEXT_FILTER) v.add(`${name} must be shorter than or equal to ${MAX_TEXT_FILTER} characters`);
  if (/[%_]/.test(raw)) v.add(`${name} must not contain % or _`);
  if (CONTROL_CHARS.test(raw)) v.add(`${name} must not contain control characters`);
  return trimmed.toLowerCase();
}

export function listConversations(req: RouteRequest) {
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
    cursorKey = ws.conversations.sortKey(cursor);
    if (!cursorKey && ownerOf(state, 'conversations', cursor)) throw forbiddenWorkspace();
    if (!cursorKey) throw badRequest(['cursor must be the id of a conversation in this workspace']);
  }

  const page = ws.conversations.listPage({
    since: sinceMs,
    until: untilMs,
    limit,
    cursor: cursorKey,
    direction,
    botId,
    sources,
    channels,
    csat,
    question,
    answer,
  });
  return {
    body: {
      interactions: page.conversations.map((c) => toPublicConversation(state, c)),
      hasMore: page.hasMore,
      nextCursor: page.nextCursor,
      prevCursor: page.prevCursor,
    },
  };
}

export function generateAnswer(req: RouteRequest) {
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

export function feedback(req: RouteRequest) {
  const { workspace: ws } = req;
  const id = req.params.id;
  const body = objectBody(req.body);
  const v = new Violations();
  if (id.trim() === '') v.add('id should not be empty');
  const eventId = requireString(v, 'eventId', body.eventId);
  const hasApproved = Object.hasOwn(body, 'approved') && body.approved !== undefined;
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

export function deleteConversation(req: RouteRequest) {
  const conv = req.workspace.conversations.get(req.params.id);
  if (conv) req.workspace.conversations.delete(conv.id);
  return { body: { success: true } };
}
