import { describe, expect, it } from 'vitest';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const sb = useSandbox(start);

const generate = (body: unknown, key?: string) => call(sb, 'POST', '/v2/hc-interactions/events/public', { body, key });
const feedback = (id: string, body: unknown, key?: string) => call(sb, 'POST', `/v2/hc-interactions/${id}/feedback/public`, { body, key });
const wsA = () => sb.state.workspaces.get(sb.seed.workspaceA)!;
const INTERNAL = { statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' };

describe('POST /v2/hc-interactions/events/public (generate answer)', () => {
  it.each([
    ['missing content', { botId: 'B' }, 'content should not be empty'],
    ['empty content', { content: '', botId: 'B' }, 'content should not be empty'],
    ['blank content', { content: '   ', botId: 'B' }, 'content should not be empty'],
    ['non-string content', { content: 42, botId: 'B' }, 'content must be a string'],
    ['bad role', { content: 'hi', botId: 'B', role: 'robot' }, 'role must be one of the following values: user, agent, svcbot, otherbot'],
    ['neither interactionId nor botId', { content: 'hi' }, 'botId is required when interactionId is omitted'],
    ['empty botId and interactionId', { content: 'hi', botId: '', interactionId: '' }, 'botId should not be empty when interactionId is omitted'],
    ['bad channel', { content: 'hi', botId: 'B', metadata: { channel: 'sms' } }, 'metadata.channel must be one of the following values: chat, email'],
    ['metadata not an object', { content: 'hi', botId: 'B', metadata: 'x' }, 'metadata must be an object'],
    ['user_attributes not an object', { content: 'hi', botId: 'B', metadata: { user_attributes: [1] } }, 'metadata.user_attributes must be an object'],
  ])('400: %s', async (_label, body, message) => {
    const b = JSON.parse(JSON.stringify(body).replace('"B"', JSON.stringify(sb.seed.bots.storeAssistant)));
    const r = await generate(b);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(r.body.message).toContain(message);
  });

  it('400 for a non-object body', async () => {
    const r = await generate([1, 2]);
    expect(r.status).toBe(400);
  });

  it('500 for unknown interactionId or botId', async () => {
    const a = await generate({ content: 'hi', interactionId: '00000000-0000-4000-8000-00000000dead' });
    expect(a.status).toBe(500);
    expect(a.body).toEqual(INTERNAL);
    const b = await generate({ content: 'hi', botId: 'no-such-bot' });
    expect(b.status).toBe(500);
  });

  it('creates a conversation for a botId and answers from the live articles with usedArticles', async () => {
    const r = await generate({ content: 'How long does standard shipping take to Texas?', botId: sb.seed.bots.storeAssistant });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body).toHaveLength(2);
    const [user, reply] = r.body;
    expect(user).toMatchObject({ role: 'user', type: 'message', message: 'How long does standard shipping take to Texas?', approved: null, usedArticles: [] });
    expect(reply).toMatchObject({ role: 'svcbot', type: 'message', interactionId: user.interactionId });
    expect(reply.message).toContain('Standard shipping takes 3 to 5 business days');
    expect(reply.usedArticles[0]).toEqual({ id: sb.seed.articles.shippingTimes, title: 'Shipping times and costs', documentUrl: expect.any(String) });
    const conv = wsA().conversations.get(user.interactionId)!;
    expect(conv).toMatchObject({ source: 'api', channel: 'chat', botId: sb.seed.bots.storeAssistant });
    expect(conv.usedArticles.map((a) => a.id)).toContain(sb.seed.articles.shippingTimes);
    expect(conv.usedSubfolders).toContainEqual({ id: sb.seed.folders.shipping, title: 'Shipping & Delivery' });
    // it shows up in the export
    const list = await call(sb, 'GET', '/v2/hc-interactions/public', { query: { source: 'api', limit: 100 } });
    expect(list.body.interactions[0].id).toBe(conv.id);
  });

  it("escalates silently when nothing matches (and ignores inactive articles and other agents' folders)", async () => {
    for (const content of ['Is the Summit tent available in orange?', 'christmas holiday cutoff']) {
      const r = await generate({ content, botId: sb.seed.bots.storeAssistant });
      expect(r.body[1]).toMatchObject({ role: 'svcbot', type: 'silent_escalation', message: null, usedArticles: [] });
    }
    const chat = await generate({ content: 'Is overnight or rush service possible?', botId: sb.seed.bots.storeAssistant });
    expect(chat.body[1].usedArticles[0].id).toBe(sb.seed.articles.expressDelivery);
    const email = await generate({ content: 'Is overnight or rush service possible?', botId: sb.seed.bots.emailSupport });
    expect(email.body[1].type).toBe('silent_escalation');
    // the email agent sees its nested international folder
    const intl = await generate({ content: 'Who pays customs duties in Canada?', botId: sb.seed.bots.emailSupport });
    expect(intl.body[1].usedArticles[0].id).toBe(sb.seed.articles.internationalShipping);
  });

  it('continues an existing conversation, applies channel override and merges user_attributes', async () => {
    const first = await generate({
      content: 'I forgot my password',
      botId: sb.seed.bots.emailSupport,
      metadata: { channel: 'email', user_attributes: { plan: 'gold', email: 'a@example.com' } },
    });
    const id = first.body[0].interactionId;
    expect(wsA().conversations.get(id)!.channel).toBe('email');
    const second = await generate({ content: 'How do I file a warranty claim?', interactionId: id, metadata: { user_attributes: { plan: 'platinum', orders: 3 } } });
    expect(second.body.map((e: { interactionId: string }) => e.interactionId)).toEqual([id, id]);
    const conv = wsA().conversations.get(id)!;
    expect(conv.events).toHaveLength(4);
    expect(conv.userAttributes).toEqual({ plan: 'platinum', email: 'a@example.com', orders: 3 });
    expect(conv.metadata.user_attributes).toEqual({ plan: 'platinum', email: 'a@example.com', orders: 3 });
    expect(second.body[1].usedArticles[0].id).toBe(sb.seed.articles.warranty);
  });

  it.each(['agent', 'svcbot', 'otherbot'])('stores a %s event without a reply', async (role) => {
    const r = await generate({ content: 'Internal follow-up', role, interactionId: sb.seed.attachmentConversation });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(1);
    expect(r.body[0]).toMatchObject({ role, type: 'message', message: 'Internal follow-up', interactionId: sb.seed.attachmentConversation });
  });
});

describe('POST /v2/hc-interactions/{id}/feedback/public', () => {
  const fresh = async () => {
    const r = await generate({ content: 'How do I start a return?', botId: sb.seed.bots.storeAssistant });
    return { convId: r.body[0].interactionId as string, userEventId: r.body[0].id as string, botEventId: r.body[1].id as string };
  };

  it.each([
    ['missing eventId', { approved: true }, 'eventId should not be empty'],
    ['empty eventId', { eventId: '', approved: true }, 'eventId should not be empty'],
    ['non-string eventId', { eventId: 5, approved: true }, 'eventId must be a string'],
    ['approved as string', { eventId: 'x', approved: 'yes' }, 'approved must be a boolean or null'],
    ['approved as number', { eventId: 'x', approved: 1 }, 'approved must be a boolean or null'],
  ])('400: %s', async (_label, body, message) => {
    const r = await feedback(sb.seed.negativeConversation, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(r.body.message).toContain(message);
  });

  it('406 for an unknown conversation, an event of another conversation, a conversation without events, and another workspace', async () => {
    const unknown = await feedback('00000000-0000-4000-8000-00000000beef', { eventId: sb.seed.negativeEvent, approved: true });
    expect(unknown.status).toBe(406);
    expect(unknown.body).toMatchObject({ statusCode: 406, error: 'Not Acceptable' });
    const wrongEvent = await feedback(sb.seed.attachmentConversation, { eventId: sb.seed.negativeEvent, approved: true });
    expect(wrongEvent.status).toBe(406);
    const { convId } = await fresh();
    wsA().conversations.get(convId)!.events = [];
    const empty = await feedback(convId, { eventId: sb.seed.negativeEvent, approved: true });
    expect(empty.status).toBe(406);
    const other = await feedback(sb.seed.negativeConversation, { eventId: sb.seed.negativeEvent, approved: true }, sb.keys.otherWorkspace);
    expect(other.status).toBe(406);
  });

  it('recomputes resolved from svcbot events rated approved=false', async () => {
    const { convId, botEventId, userEventId } = await fresh();
    const conv = () => wsA().conversations.get(convId)!;
    const ev = () => conv().events.find((e) => e.id === botEventId)!;
    expect(conv().resolved).toBeNull();

    expect((await feedback(convId, { eventId: botEventId, approved: false })).body).toEqual({ success: true });
    expect(ev()).toMatchObject({ approved: false, resolved: false });
    expect(conv()).toMatchObject({ resolved: false, hasFeedback: true });

    // a teammate resolves the flagged answer; re-sending thumbs down keeps it resolved
    ev().resolved = true;
    await feedback(convId, { eventId: botEventId, approved: false });
    expect(conv().resolved).toBe(true);

    // a second negatively rated answer that is unresolved -> false
    const more = await generate({ content: 'How long does standard shipping take?', interactionId: convId });
    const second = more.body[1].id;
    await feedback(convId, { eventId: second, approved: false });
    expect(conv().resolved).toBe(false);

    // thumbs up on it -> only the resolved one remains -> true
    await feedback(convId, { eventId: second, approved: true });
    expect(conv().events.find((e) => e.id === second)).toMatchObject({ approved: true, resolved: null });
    expect(conv().resolved).toBe(true);

    // clearing the first -> no negatively rated svcbot event -> null
    await feedback(convId, { eventId: botEventId, approved: null });
    expect(ev()).toMatchObject({ approved: null, resolved: null });
    expect(conv().resolved).toBeNull();

    // thumbs down on a user event does not count towards resolved
    await feedback(convId, { eventId: userEventId, approved: false });
    expect(conv().resolved).toBeNull();
    expect(conv().hasFeedback).toBe(true);
  });

  it('treats a missing approved as no change', async () => {
    const r = await feedback(sb.seed.negativeConversation, { eventId: sb.seed.negativeEvent });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true });
    const conv = wsA().conversations.get(sb.seed.negativeConversation)!;
    expect(conv.events.find((e) => e.id === sb.seed.negativeEvent)!.approved).toBe(false);
    expect(conv.resolved).toBe(false);
  });

  it('thumbs up on the seeded negative answer resolves the conversation flag to null', async () => {
    await feedback(sb.seed.negativeConversation, { eventId: sb.seed.negativeEvent, approved: true });
    const list = await call(sb, 'GET', '/v2/hc-interactions/public');
    const conv = list.body.interactions.find((c: { id: string }) => c.id === sb.seed.negativeConversation);
    expect(conv.resolved).toBeNull();
    expect(conv.events.find((e: { id: string }) => e.id === sb.seed.negativeEvent)).toMatchObject({ approved: true, resolved: null });
  });
});

describe('DELETE /v2/hc-interactions/{id}/public', () => {
  it('deletes a conversation and returns success', async () => {
    const id = 'c0000000-000a-4000-8000-000000000009';
    const r = await call(sb, 'DELETE', `/v2/hc-interactions/${id}/public`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true });
    const list = await call(sb, 'GET', '/v2/hc-interactions/public');
    expect(list.body.interactions.map((c: { id: string }) => c.id)).not.toContain(id);
  });

  it('returns success for unknown, already deleted and other-workspace ids without deleting anything', async () => {
    for (const id of ['00000000-0000-4000-8000-00000000f00d', 'c0000000-000a-4000-8000-000000000009', 'not-even-a-uuid']) {
      const r = await call(sb, 'DELETE', `/v2/hc-interactions/${id}/public`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: true });
    }
    const r = await call(sb, 'DELETE', `/v2/hc-interactions/${sb.seed.attachmentConversation}/public`, { key: sb.keys.otherWorkspace });
    expect(r.body).toEqual({ success: true });
    expect(wsA().conversations.has(sb.seed.attachmentConversation)).toBe(true);
  });
});
