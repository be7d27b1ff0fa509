/**
 * The workflow prompts (tools/prompts.ts), each offered by the group whose tools it uses, as a
 * client lists and renders them.
 */
import { describe, expect, it } from 'vitest';
import { useServer } from '../support/fixture.js';

const { sandbox, server } = useServer({ env: { SVC_CONFIRM: 'none' } });

describe('prompts', () => {
  it('offers the triage prompt', async () => {
    const prompts = await server.client.listPrompts();
    expect(prompts.prompts.map((prompt) => prompt.name)).toContain('triage_negative_answers');
    const prompt = await server.client.getPrompt({ name: 'triage_negative_answers', arguments: { since: '14d' } });
    expect(JSON.stringify(prompt.messages)).toContain('export_conversations');
  });

  it('offers the setup_attribute and review_refine_session prompts', async () => {
    const names = (await server.client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(names).toEqual(expect.arrayContaining(['setup_attribute', 'review_refine_session']));
    const setup = await server.client.getPrompt({ name: 'setup_attribute', arguments: { purpose: 'the order status' } });
    const text = JSON.stringify(setup.messages);
    for (const tool of ['create_action', 'update_action', 'add_data_step', 'assign_action_to_agents', 'test_action']) expect(text).toContain(tool);
    const review = await server.client.getPrompt({ name: 'review_refine_session', arguments: { interactionId: 'c1', eventId: 'e1' } });
    expect(JSON.stringify(review.messages)).toContain('wait_for_refine_session');
  });

  it('review_refine_session tells the model to read the diffs before recommending anything', async () => {
    const prompt = await server.client.getPrompt({ name: 'review_refine_session', arguments: { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent } });
    const text = JSON.stringify(prompt.messages);
    expect(text).toContain('Before you judge anything');
    expect(text).toContain('draftReview');
    expect(text).toContain('compare_article_draft');
    expect(text.indexOf('draftReview')).toBeLessThan(text.indexOf('Recommend publish'));
  });

  it('offers the import prompt', async () => {
    const prompt = await server.client.getPrompt({ name: 'import_knowledge_from_urls', arguments: { urls: 'https://a.example/x, https://a.example/y', botId: 'bot-1' } });
    const rendered = JSON.stringify(prompt.messages);
    expect(rendered).toContain('ingest_sources');
    expect(rendered).toContain('https://a.example/y');
    expect(rendered).toContain('wait true');
    expect(rendered).toContain('bot-1');
  });
});
