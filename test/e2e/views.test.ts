import { describe, expect, it } from 'vitest';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { UI_EXTENSION, VIEW_MIME_TYPE } from '../../src/views/index.js';
import { GATE_ANSWER_META } from '../../src/views/results.js';
import { MAX_VIEW_BYTES } from '../../src/views/build.js';
import { textOf } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';
import { connectViewClient, SHOWS_VIEWS } from '../views/client.js';

const sandbox = useSandbox();
const withViews = useConnection(sandbox, { capabilities: SHOWS_VIEWS });
const withoutViews = useConnection(sandbox);

/** What the model reads of a listing: names, descriptions and input schemas. */
const modelVisible = (tools: Tool[]) => tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));

describe('views (MCP Apps)', () => {
  it('uses the extension id and MIME type of @modelcontextprotocol/ext-apps', () => {
    expect(UI_EXTENSION).toBe(EXTENSION_ID);
    expect(VIEW_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
  });

  it('names each view in _meta only for clients with the extension; what the model reads stays the same', async () => {
    const [shown, plain] = await Promise.all([withViews.client.listTools(), withoutViews.client.listTools()]);
    expect(plain.tools.filter((tool) => tool._meta)).toEqual([]);
    expect(modelVisible(shown.tools)).toEqual(modelVisible(plain.tools));
    const named = Object.fromEntries(shown.tools.filter((tool) => tool._meta).map((tool) => [tool.name, tool._meta]));
    expect(named).toEqual({
      conversation_stats: { ui: { resourceUri: 'ui://svc-mcp/stats' }, 'ui/resourceUri': 'ui://svc-mcp/stats' },
      compare_article_draft: { ui: { resourceUri: 'ui://svc-mcp/review' }, 'ui/resourceUri': 'ui://svc-mcp/review' },
      compare_rule_versions: { ui: { resourceUri: 'ui://svc-mcp/review' }, 'ui/resourceUri': 'ui://svc-mcp/review' },
    });
  });

  it('lists and serves each view, to a client with the extension only, as one self-contained page with a policy that names no outside domain', async () => {
    const plain = await withoutViews.client.listResources();
    expect(plain.resources.filter((resource) => resource.uri.startsWith('ui://'))).toEqual([]);
    await expect(withoutViews.client.readResource({ uri: 'ui://svc-mcp/stats' })).rejects.toThrow();
    const { resources } = await withViews.client.listResources();
    const views = resources.filter((resource) => resource.uri.startsWith('ui://'));
    expect(views.map((view) => [view.uri, view.mimeType])).toEqual([
      ['ui://svc-mcp/stats', VIEW_MIME_TYPE],
      ['ui://svc-mcp/review', VIEW_MIME_TYPE],
    ]);
    for (const view of views) {
      const { contents } = await withViews.client.readResource({ uri: view.uri });
      const [page] = contents as unknown as Array<{ mimeType: string; text: string; _meta: { ui: { csp: Record<string, string[]> } } }>;
      expect(page.mimeType).toBe(VIEW_MIME_TYPE);
      expect(Object.values(page._meta.ui.csp).flat()).toEqual([]);
      expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(MAX_VIEW_BYTES);
      expect(page.text).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/);
      expect(page.text).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
    }
  }, 30_000);

  it('works under the core surface: the stats and review views are listed (design section 13), and a view may call a catalog tool directly', async () => {
    const core = await connectViewClient(sandbox, { SVC_TOOLSETS: 'core' });
    try {
      const { tools } = await core.client.listTools();
      expect(tools.filter((tool) => tool._meta).map((tool) => [tool.name, tool._meta?.ui])).toEqual([
        ['conversation_stats', { resourceUri: 'ui://svc-mcp/stats' }],
        ['compare_article_draft', { resourceUri: 'ui://svc-mcp/review' }],
      ]);
      const { resources } = await core.client.listResources();
      expect(resources.filter((resource) => resource.uri.startsWith('ui://')).map((resource) => resource.uri)).toEqual(['ui://svc-mcp/stats', 'ui://svc-mcp/review']);
      const preview = await core.call('publish_article_draft', { articleId: sandbox.seed.articles.returnsPolicyDraft, confirm: true });
      expect(preview.structuredContent).toMatchObject({ sent: false, confirmToken: expect.any(String) });
    } finally {
      await core.close();
    }
  });

  it('keeps the full text result beside the view', async () => {
    const result = await withViews.call('compare_article_draft', { draftArticleId: sandbox.seed.articles.returnsPolicyDraft });
    expect(textOf(result)).toContain('within 45 days');
    expect(result.structuredContent).toMatchObject({ drafts: [expect.objectContaining({ text: expect.arrayContaining([expect.objectContaining({ hunks: expect.any(Array) })]) })] });
  });

  it('confirm: true only previews a write even under SVC_CONFIRM=none, so a view can show it first', async () => {
    const unconfirmed = await connectViewClient(sandbox, { SVC_CONFIRM: 'none' });
    try {
      // As a host does: listed, the tool's output schema is checked against every structured result.
      expect((await unconfirmed.client.listTools()).tools.find((tool) => tool.name === 'publish_article_draft')?.outputSchema).toBeDefined();
      const articleId = sandbox.seed.articles.giftCardsDraft;
      sandbox.clearRequests();
      const publishes = () => sandbox.requests.filter((request) => request.path.endsWith('/publish/public')).map((request) => `${request.method} ${request.path}`);
      const preview = await unconfirmed.call('publish_article_draft', { articleId, confirm: true });
      // Not the publish's result, so not under its schema: an error saying nothing was sent, the preview in _meta for the view.
      expect(preview.isError).toBe(true);
      expect(textOf(preview)).toContain('nothing was sent');
      expect(preview._meta?.[GATE_ANSWER_META]).toMatchObject({ sent: false, confirmToken: expect.any(String) });
      expect(publishes()).toEqual([]);
      const token = (preview._meta![GATE_ANSWER_META] as { confirmToken: string }).confirmToken;
      expect((await unconfirmed.call('publish_article_draft', { articleId, confirm: token })).isError).toBeFalsy();
      expect(publishes()).toEqual([`POST /v2/hc-articles/${articleId}/publish/public`]);
    } finally {
      await unconfirmed.close();
    }
  });
});
