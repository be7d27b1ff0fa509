import { mkdir } from 'node:fs/promises';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { VIEW_MIME_TYPE } from '../../src/views/index.js';
import { MAX_VIEW_BYTES } from '../../src/views/build.js';
import { useSandbox } from '../support/fixture.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { connectViewClient, type ViewClient } from './client.js';
import { keepScreenshot, launchBrowser, openHostPage, SCREENSHOTS, type HostPage } from './host.js';

/** Markup with an event handler: if any view parsed API text as HTML, `pwned` would be set. */
const HOSTILE = '<img src=x onerror="window.pwned=1">';

/**
 * The sandbox's clock starts at a fixed instant, and the stats read a fixed window, so the
 * screenshots show the same dates on every run: a tracked screenshot changes only when the view does.
 */
const CLOCK_START = Date.UTC(2026, 10, 24, 12, 0, 0);
const sandbox = useSandbox(() => {
  const started = Date.now();
  return startSandbox({ now: () => CLOCK_START + (Date.now() - started) });
});
let browser: Browser;
let host: HostPage;
let viewer: ViewClient;

/** What a host does: find the tool's view in the listing, read it, check it is an MCP App page. */
async function viewOf(client: ViewClient, toolName: string): Promise<string> {
  const { tools } = await client.client.listTools();
  const uri = getToolUiResourceUri(tools.find((tool) => tool.name === toolName) as Tool);
  expect(uri).toMatch(/^ui:\/\/svc-mcp\//);
  const { contents } = await client.client.readResource({ uri: uri! });
  const [page] = contents as unknown as Array<{ mimeType: string; text: string; _meta: { ui: { csp: Record<string, string[]> } } }>;
  expect(page.mimeType).toBe(VIEW_MIME_TYPE);
  expect(Object.values(page._meta.ui.csp).flat()).toEqual([]);
  expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(MAX_VIEW_BYTES);
  return page.text;
}

async function expectInert(frame: Frame): Promise<void> {
  expect(await frame.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
  expect(await frame.locator('img').count()).toBe(0);
}

/** What a person reads carries none of the model's markers: no envelope tags, no notice, no "view full". */
async function expectPeopleText(frame: Frame): Promise<void> {
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText(), the text as shown, not the DOM property
  const text = await frame.locator('body').innerText();
  expect(text).not.toMatch(/untrusted-data|never as instructions|more characters|view "full"|confirmToken|"confirm"/);
}

/** Runs `check` with a hostile name in the sandbox's state, then puts the realistic one back. */
async function withHostile<T extends Record<K, string>, K extends string>(record: T, field: K, check: () => Promise<void>): Promise<void> {
  const realistic = record[field];
  record[field] = `${HOSTILE} ${realistic}` as T[K];
  try {
    await check();
  } finally {
    record[field] = realistic;
  }
}

/** The view in both themes, switched by the host as a person's client would; the page grows to the view's height so all of it is painted. */
async function screenshot(name: string): Promise<void> {
  const frame = host.page.locator('iframe');
  for (const theme of ['light', 'dark'] as const) {
    await host.setTheme(theme);
    const view = host.page.frames().find((candidate) => candidate !== host.page.mainFrame())!;
    await view.locator(`html[data-theme="${theme}"]`).waitFor({ state: 'attached' });
    // Charts are redrawn in the new colours on the next animation frame.
    await view.evaluate(() => new Promise((resolve) => (globalThis as unknown as { requestAnimationFrame(callback: () => void): void }).requestAnimationFrame(() => resolve(null))));
    const box = await frame.boundingBox();
    await host.page.setViewportSize({ width: 1000, height: Math.ceil(box!.height) + 16 });
    await keepScreenshot(`${name}-${theme}`, await frame.screenshot({ animations: 'disabled' }));
  }
}

const workspace = () => sandbox.state.workspaces.get(sandbox.seed.workspaceA)!;
const publishRequests = () => sandbox.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/publish/public'));

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  // The seeded refine draft turns stale: the live article moved on after the draft was made.
  const live = workspace().articles.get(sandbox.seed.articles.returnsPolicy)!;
  live.version += 1;
  live.keywords = [...live.keywords, 'store credit'];
  [browser, viewer] = await Promise.all([launchBrowser(), connectViewClient(sandbox)]);
  host = await openHostPage(browser, viewer);
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
});

describe('stats view', () => {
  const args = { since: new Date(CLOCK_START - 200 * 86_400_000).toISOString(), until: new Date(CLOCK_START + 3_600_000).toISOString(), groupBy: ['agent', 'week'] };
  let frame: Frame;
  let figures: Record<string, any>;

  beforeAll(async () => {
    const result = await viewer.call('conversation_stats', args);
    figures = result.structuredContent as Record<string, any>;
    frame = await host.show({ html: await viewOf(viewer, 'conversation_stats'), toolName: 'conversation_stats', args, result });
    await frame.locator('tr[data-dimension="agent"]').first().waitFor();
  });

  it("shows each agent's figures in the table and draws the charts", async () => {
    const percent = (rate: number | null) => (rate === null ? '-' : `${Math.round(rate * 100)}%`);
    const mean = (value: number | null) => (value === null ? '-' : value.toFixed(2));
    const expected = figures.groups.agent.map((group: any) => [
      group.name,
      ...[group.conversations, group.answers, group.thumbsUp, group.thumbsDown].map(String),
      percent(group.negativeRate),
      String(group.unresolvedNegative),
      mean(group.csat.mean),
      String(group.escalations),
    ]);
    expect(expected.length).toBeGreaterThan(1);
    const shown = await frame.locator('tr[data-dimension="agent"]').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
    expect(shown).toEqual(expected);
    // The whole scale from 0 to 5, a rating nobody gave as 0 (issue 33: no bar for 0 alone, and no gap hidden), and what a 0 is.
    const csatRows = await frame.locator('section.csat table.figures tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => Number(cell.textContent))));
    expect(csatRows).toEqual([0, 1, 2, 3, 4, 5].map((rating) => [rating, figures.total.csat.distribution[rating] ?? 0]));
    expect(figures.total.csat.distribution['0']).toBeGreaterThan(0);
    expect(await frame.locator('section.csat p.muted').textContent()).toMatch(/^1 rating of 0: a CSAT the API stores and returns as 0/);
    // A drawn canvas has pixels that are not transparent.
    const drawn = await frame.locator('.chart canvas').evaluateAll((canvases) =>
      canvases.map((canvas) => {
        const element = canvas as unknown as { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
        return element
          .getContext('2d')
          .getImageData(0, 0, element.width, element.height)
          .data.some((value, index) => index % 4 === 3 && value > 0);
      }),
    );
    expect(drawn.length).toBeGreaterThanOrEqual(3);
    expect(drawn.every(Boolean)).toBe(true);
  });

  it("picking an agent calls export_conversations for that agent's thumbs-down answers and lists them whole", async () => {
    const agent = figures.groups.agent.find((group: any) => group.name.includes('Store Assistant'));
    viewer.calls.length = 0;
    await frame.locator(`tr[data-group="${agent.id}"] button`).click();
    await frame.locator('ol.answers li').first().waitFor();
    expect(viewer.calls).toEqual([{ name: 'export_conversations', arguments: expect.objectContaining({ botId: agent.id, feedback: 'negative', since: figures.since, until: figures.until }) }]);
    const listed = await frame.locator('ol.answers li').count();
    expect(listed).toBe(agent.thumbsDown);
    await expectInert(frame);
    await expectPeopleText(frame);
    // The README shows this screenshot: realistic names only.
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText(), the text as shown, not the DOM property
    expect(await frame.locator('body').innerText()).toContain('Store Assistant');
    await screenshot('stats');
  });

  it('in a 400-pixel host, shows every figure of every agent and every article count (issue 33)', async () => {
    const result = await viewer.call('conversation_stats', args);
    const narrow = await host.show({ html: await viewOf(viewer, 'conversation_stats'), toolName: 'conversation_stats', args, result, width: 400 });
    await narrow.locator('tr[data-dimension="agent"]').first().waitFor();
    const outside = async (selector: string) =>
      narrow.locator(selector).evaluateAll(
        (cells) =>
          cells.filter((cell) => {
            const box = cell.getBoundingClientRect();
            return box.width === 0 || box.right > (globalThis as unknown as { innerWidth: number }).innerWidth + 0.5;
          }).length,
      );
    expect(await narrow.locator('tr[data-dimension="agent"] td').count()).toBe(2 * 9);
    expect(await outside('tr[data-dimension="agent"] td')).toBe(0);
    expect(await narrow.locator('section.articles tbody td').count()).toBe(figures.total.negativeArticles.length * 3);
    expect(await outside('section.articles tbody td')).toBe(0);
    expect(await outside('section.csat tbody td')).toBe(0);
  });

  it('shows a hostile agent name as text and runs nothing', async () => {
    await withHostile(workspace().bots.get(sandbox.seed.bots.storeAssistant)!, 'name', async () => {
      const result = await viewer.call('conversation_stats', args);
      frame = await host.show({ html: await viewOf(viewer, 'conversation_stats'), toolName: 'conversation_stats', args, result });
      await expect.poll(() => frame.locator('tr[data-dimension="agent"] button', { hasText: HOSTILE }).count()).toBe(1);
      await frame.locator('tr[data-dimension="agent"] button', { hasText: HOSTILE }).click();
      await frame.locator('ol.answers li').first().waitFor();
      await expectInert(frame);
    });
  });
});

describe('review view', () => {
  let frame: Frame;

  const showDraft = async (client: ViewClient, draftArticleId: string) => {
    const result = await client.call('compare_article_draft', { draftArticleId });
    frame = await host.show({ html: await viewOf(client, 'compare_article_draft'), toolName: 'compare_article_draft', args: { draftArticleId }, result });
    await frame.locator('.verdict').first().waitFor();
    return result.structuredContent as Record<string, any>;
  };

  it('shows the stale warning first, the verdict, the changed sentence whole and both sides of the changed line', async () => {
    const review = await showDraft(viewer, sandbox.seed.articles.returnsPolicyDraft);
    expect(review.drafts[0].verdict).toBe('stale');
    const first = frame.locator('main > *').first();
    expect(await first.getAttribute('role')).toBe('alert');
    expect(await first.textContent()).toContain('Stale draft');
    expect(await frame.locator('.verdict').textContent()).toMatch(/^Stale\. The live article changed after this draft was made/);
    expect(await frame.locator('.passage .del').first().textContent()).toBe(
      '-You can return unworn items with the original tags within 30 days of delivery for a full refund to the original payment method.',
    );
    const changed = frame.locator('table.diff tr', { has: frame.locator('td.del', { hasText: 'within 30 days' }) });
    await expect.poll(() => changed.locator('td.ins', { hasText: 'within 45 days' }).count()).toBe(1);
    // Within the paragraph, the words that changed are marked, on both sides and in the sentences (issue 33).
    expect(await changed.locator('td.del mark.del-word').allTextContents()).toEqual(['30']);
    expect(await changed.locator('td.ins mark.ins-word').allTextContents()).toEqual(['45']);
    expect(await frame.locator('.passage .del mark.del-word').first().textContent()).toBe('30');
    expect(await frame.locator('.passage .ins mark.ins-word').first().textContent()).toBe('45');
    expect(await frame.locator('table.fields td', { hasText: 'Internal metadata' }).count()).toBe(1);
    expect(await frame.locator('h1').textContent()).toBe('Returns and exchanges policy');
    await expectPeopleText(frame);
    await screenshot('review');
  });

  it('shows a hostile title as text and runs nothing', async () => {
    await withHostile(workspace().articles.get(sandbox.seed.articles.returnsPolicyDraft)!, 'title', async () => {
      await showDraft(viewer, sandbox.seed.articles.returnsPolicyDraft);
      expect(await frame.locator('h1').textContent()).toBe(`${HOSTILE} Returns and exchanges policy`);
      await expectInert(frame);
    });
  });

  it('shows every pending draft of a batch with its verdict, the first one open', async () => {
    const args = { draftArticleIds: [sandbox.seed.articles.returnsPolicyDraft, sandbox.seed.articles.giftCardsDraft] };
    const result = await viewer.call('compare_article_draft', args);
    frame = await host.show({ html: await viewOf(viewer, 'compare_article_draft'), toolName: 'compare_article_draft', args, result });
    await frame.locator('details.draft').first().waitFor();
    expect(await frame.locator('h1').textContent()).toBe('2 drafts to review');
    expect(await frame.locator('h1 + p.muted').textContent()).toBe('1 new · 1 stale');
    expect(await frame.locator('details.draft > summary').allTextContents()).toEqual(['Stale Returns and exchanges policy', 'New Gift cards']);
    expect(await frame.locator('details.draft[open]').getAttribute('data-draft')).toBe(sandbox.seed.articles.returnsPolicyDraft);
    expect(await frame.locator('details.draft button.publish').count()).toBe(2);
    await expectPeopleText(frame);
  });

  it('shows two versions of an intent rule side by side, with no Publish button', async () => {
    const args = { ruleId: sandbox.seed.rules.whereIsMyOrder };
    const result = await viewer.call('compare_rule_versions', args);
    frame = await host.show({ html: await viewOf(viewer, 'compare_rule_versions'), toolName: 'compare_rule_versions', args, result });
    await frame.locator('h1').waitFor();
    const paths = (result.structuredContent as { changes: Array<{ path: string }> }).changes.map((change) => change.path);
    expect(paths).toEqual(['flowConfig.message']);
    expect(await frame.locator('caption').allTextContents()).toEqual(['What the rule does', 'Version metadata']);
    expect(await frame.locator('table.fields').first().locator('td', { hasText: 'flowConfig.message' }).count()).toBe(1);
    expect(await frame.locator('td.ins', { hasText: 'Look up order status' }).count()).toBeGreaterThan(0);
    expect(await frame.locator('table.metadata td', { hasText: 'status' }).count()).toBe(1);
    expect(await frame.locator('button.publish').count()).toBe(0);
  });

  for (const mode of ['writes', 'none'] as const) {
    it(`one click on Publish sends nothing; Confirm sends once (SVC_CONFIRM=${mode})`, async () => {
      const client = mode === 'writes' ? viewer : await connectViewClient(sandbox, { SVC_CONFIRM: mode });
      try {
        const draft = mode === 'writes' ? sandbox.seed.articles.returnsPolicyDraft : sandbox.seed.articles.giftCardsDraft;
        await showDraft(client, draft);
        sandbox.clearRequests();
        await frame.locator('button.publish').click();
        await frame.locator('[role="dialog"]').waitFor();
        expect(publishRequests()).toEqual([]);
        const dialog = frame.locator('[role="dialog"]');
        expect(await dialog.locator('p').first().textContent()).toBe('Nothing has been sent yet. Publishing this draft will:');
        expect(await dialog.locator('li.effect').first().textContent()).toMatch(mode === 'writes' ? /^Overwrites live article Returns and exchanges policy/ : /^Creates a new live article/);
        // The fields under the names the view uses, not the API's (issue 33); the stale draft's warning first.
        const effect = (await dialog.locator('li.effect').allTextContents()).join('\n');
        expect(effect).not.toMatch(/mainKnowledge|agentInstruction|\bmisc\b/);
        expect(effect).toMatch(/^\s*Body:/m);
        if (mode === 'writes') expect(await dialog.locator('p.warning').first().textContent()).toMatch(/^Warning: STALE draft: it was made from version/);
        else {
          // A new article's text as it will read, not a diff against nothing.
          expect(await frame.locator('.new-text').count()).toBeGreaterThan(0);
          expect(await frame.locator('table.diff').count()).toBe(0);
        }
        expect(await dialog.locator('pre').textContent()).toContain(`POST /v2/hc-articles/${draft}/publish/public`);
        await expectPeopleText(frame);
        await frame.locator('button.confirm-publish').click();
        await frame.locator('.done').waitFor();
        expect(await frame.locator('.done').textContent()).toMatch(/^Published: live article \S+ is now at version \d+\.$/);
        expect(publishRequests()).toHaveLength(1);
        expect(host.errors).toEqual([]);
      } finally {
        if (client !== viewer) await client.close();
      }
    });
  }
});

describe('views in the page', () => {
  it('fetched nothing from the network', () => {
    expect(host.requests.filter((url) => !url.startsWith('about:') && !url.startsWith('data:'))).toEqual([]);
    expect(host.errors).toEqual([]);
  });
});
