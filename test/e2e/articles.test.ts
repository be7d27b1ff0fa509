/**
 * The articles tools (tools/articles.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process. Draft review (compare_article_draft) is in
 * articles-drafts.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { apiRequests, connect, sandboxEnv, textOf } from '../support/harness.js';
import { structured, useConnection, useServer } from '../support/fixture.js';
import { effectOf, expectListing, expectRefused, expectRoutes } from '../support/tool-checks.js';

const FAST = { pendingMs: 400, inProgressMs: 600 };
const { sandbox, server, call } = useServer({ sandbox: { jobTimings: FAST }, env: { SVC_CONFIRM: 'none' } });
/** Answers writes with a preview and a confirmToken (no elicitation). */
const previewing = useConnection(sandbox, { env: { SVC_CONFIRM: 'writes' } });

const ARTICLES = ['list_articles', 'get_articles', 'create_article', 'update_article', 'create_article_draft', 'publish_article_draft', 'move_article', 'delete_article'];

describe('articles tools', () => {
  it('lists all 8 tools with correct hints and output schemas', async () => {
    await expectListing(server, {
      tools: ARTICLES,
      reads: ['list_articles', 'get_articles'],
      destructive: ['delete_article'],
      idempotentWrites: ['update_article', 'move_article', 'delete_article'],
      outputs: ['list_articles', 'get_articles', 'publish_article_draft'],
    });
  });

  it('each tool reaches its route with the documented query and body', async () => {
    const seed = sandbox.seed;
    const state: Record<string, string> = {};
    await expectRoutes(call, sandbox, ARTICLES, [
      ['list_articles', () => ({ type: 'draft' }), 'GET', () => '/v2/hc-articles/public', { type: 'draft' }, undefined],
      ['get_articles', () => ({ articleIds: [seed.articles.warranty] }), 'POST', () => '/v2/hc-articles/ids/public', {}, { articleIds: [seed.articles.warranty] }],
      [
        'create_article',
        () => ({ title: 'Sock care', mainKnowledge: 'Wash cold.', parentFolderId: seed.folders.shipping, keywords: ['socks'] }),
        'POST',
        () => '/v2/hc-articles/public',
        {},
        { title: 'Sock care', mainKnowledge: 'Wash cold.', parentFolderId: seed.folders.shipping, keywords: ['socks'] },
        (data) => (state.articleId = data.id),
      ],
      ['update_article', () => ({ articleId: state.articleId, title: 'Caring for socks' }), 'PUT', () => `/v2/hc-articles/${state.articleId}/public`, {}, { title: 'Caring for socks' }],
      [
        'create_article_draft',
        () => ({ articleId: seed.articles.warranty, agentInstruction: 'Ask for a photo.' }),
        'POST',
        () => `/v2/hc-articles/${seed.articles.warranty}/draft/public`,
        {},
        { agentInstruction: 'Ask for a photo.' },
        (data) => (state.draftId = data.id),
      ],
      ['publish_article_draft', () => ({ articleId: state.draftId, public: true }), 'POST', () => `/v2/hc-articles/${state.draftId}/publish/public`, {}, { public: true }],
      [
        'move_article',
        () => ({ articleId: state.articleId, parentFolderId: seed.folders.accountReturns }),
        'PUT',
        () => `/v2/hc-articles/${state.articleId}/move/public`,
        {},
        () => ({ parentFolderId: seed.folders.accountReturns }),
      ],
      ['delete_article', () => ({ articleId: state.articleId }), 'DELETE', () => `/v2/hc-articles/${state.articleId}/public`, {}, undefined],
    ]);
  });

  it('refuses every documented rule by field name before sending anything', async () => {
    await expectRefused(call, sandbox, [
      ['list_articles', { type: 'archived' }, 'type: must be one of "live", "draft"'],
      ['get_articles', {}, 'articleIds: is required'],
      ['publish_article_draft', { articleId: 'd', questions: [] }, 'questions: must not be empty'],
      ['publish_article_draft', { articleId: 'd', keywords: [] }, 'keywords: must not be empty'],
      ['update_article', { title: 'x' }, 'articleId: is required'],
      ['create_article', { escalation: 'sometimes' }, 'escalation: must be a boolean'],
      ['delete_article', { articleId: ' ' }, 'articleId: must not be empty'],
    ]);
  });

  it('publish_article_draft: explains a 404 with the tool that lists the ids', async () => {
    const draft = await call('publish_article_draft', { articleId: sandbox.seed.articles.warranty });
    expect(textOf(draft)).toContain('list_articles with type draft');
    expect(textOf(draft)).toContain('nothing changed');
  });

  it('get_articles, list_articles: read articles with untrusted bodies marked, and show a compact list by default', async () => {
    const list = structured(await call('list_articles'));
    expect(list.articles.length).toBeGreaterThan(3);
    expect(list.articles[0]).not.toHaveProperty('mainKnowledge');
    const full = await call('get_articles', { articleIds: [sandbox.seed.articles.returnsPolicy] });
    expect(structured(full).articles[0].mainKnowledge).toContain('30 days');
    expect(textOf(full)).toMatch(/<(untrusted-data-[0-9a-f]+)>\n[^<]*mainKnowledge: [^<]*30 days[^<]*<\/\1>/);
  });

  it('serves the live and draft articles as resources', async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text('svc://articles/live')).toContain('Tracking your order');
    expect(await text('svc://articles/draft')).toContain(sandbox.seed.articles.returnsPolicyDraft);
  });
});

describe('confirmation of article writes', () => {
  it('get_articles: sends the POST read without confirmation', async () => {
    const client = await connect({ env: sandboxEnv(sandbox) });
    try {
      const read = await client.call('get_articles', { articleIds: [sandbox.seed.articles.warranty] });
      expect(structured(read).articles).toHaveLength(1);
      expect(apiRequests(sandbox).map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v2/hc-articles/ids/public']);
    } finally {
      await client.close();
    }
  });
});

describe('previews say which fields change', () => {
  it('update_article: a body edit shows the changed sentence whole, with the sentence after it', async () => {
    const article = ((await call('get_articles', { articleIds: [sandbox.seed.articles.returnsPolicy] })).structuredContent as { articles: Array<{ mainKnowledge: string }> }).articles[0];
    const effect = await effectOf(previewing, 'update_article', { articleId: sandbox.seed.articles.returnsPolicy, mainKnowledge: article.mainKnowledge.replace('30 days', '45 days') });
    const body = effect.find((line) => line.startsWith('What it writes:'))!.split('\n');
    expect(body).toEqual([
      'What it writes:',
      '  mainKnowledge:',
      '    - You can return unworn items with the original tags within 30 days of delivery for a full refund to the original payment method.',
      '    + You can return unworn items with the original tags within 45 days of delivery for a full refund to the original payment method.',
      expect.stringMatching(/^ {6}Start a return from Orders in your account/),
    ]);
  });
});
