import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { apiRequests, connect, sandboxEnv, textOf, withSandbox, type Connection } from '../support/harness.js';

let sandbox: Sandbox;
let server: Connection;

async function call(name: string, args: Record<string, unknown> = {}) {
  return (await server.client.callTool({ name, arguments: args })) as CallToolResult;
}

function structured<T = Record<string, any>>(result: CallToolResult): T {
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as T;
}

type Line = { mark: string; text: string; oldLine?: number; newLine?: number };
const linesOf = (comparison: Record<string, any>, field: string): Line[] =>
  comparison.text.find((entry: { field: string }) => entry.field === field).hunks.flatMap((hunk: { lines: Line[] }) => hunk.lines);

beforeAll(async () => {
  sandbox = await withSandbox();
  server = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'none' }) });
});

afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

beforeEach(() => {
  sandbox.clearRequests();
});

describe('refine review that cannot mislead', () => {
  const session = () => ({ interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent });

  it('wait_for_refine_session shows the linked draft changing the return window, and that it predates the session', async () => {
    const result = await call('wait_for_refine_session', session());
    const data = structured(result);
    expect(data.summary).toContain('Final Sale');
    const [change] = data.changes;
    expect(change.draftArticleId).toBe(sandbox.seed.articles.returnsPolicyDraft);
    expect(change.draftReview.diff).toMatch(/-.*within 30 days/);
    expect(change.draftReview.diff).toMatch(/\+.*within 45 days/);
    expect(change.draftReview.wordChanges).toContainEqual(expect.objectContaining({ before: expect.stringContaining('30 days'), after: expect.stringContaining('45 days') }));
    expect(data.warnings).toEqual([expect.stringContaining('before this refine session began')]);
    expect(textOf(result)).toContain('45 days');
    // One session read, then the draft and its live article.
    expect(apiRequests(sandbox)).toHaveLength(3);
  });

  it('get_refine_session shows the same diffs inline and no longer repeats latestIteration', async () => {
    const compact = structured(await call('get_refine_session', session()));
    expect(compact).not.toHaveProperty('latestIteration');
    expect(compact.iterations).toHaveLength(1);
    expect(compact.iterations[0].changes[0].draftReview.diff).toContain('45 days');
    expect(compact.warnings[0]).toContain('before this refine session began');
    const full = structured(await call('get_refine_session', { ...session(), view: 'full' }));
    expect(full).not.toHaveProperty('latestIteration');
    expect(full.iterations[0].companyId).toBeDefined();
    expect(full.iterations[0].changes[0].draftReview.outcome).toBe('changes');
  });

  it('tells the model to read the diffs before recommending anything', async () => {
    const prompt = await server.client.getPrompt({ name: 'review_refine_session', arguments: session() });
    const text = JSON.stringify(prompt.messages);
    expect(text).toContain('Before you judge anything');
    expect(text).toContain('draftReview');
    expect(text).toContain('compare_article_draft');
    expect(text.indexOf('draftReview')).toBeLessThan(text.indexOf('Recommend publish'));
  });
});

describe('compare_article_draft', () => {
  it('shows the changed lines of the seeded draft with line numbers', async () => {
    const result = await call('compare_article_draft', { draftArticleId: sandbox.seed.articles.returnsPolicyDraft });
    const data = structured(result);
    expect(data).toMatchObject({ outcome: 'changes', liveArticleId: sandbox.seed.articles.returnsPolicy, stale: false });
    const main = linesOf(data, 'mainKnowledge');
    expect(main).toContainEqual(expect.objectContaining({ mark: '-', oldLine: 1, text: expect.stringContaining('within 30 days') }));
    expect(main).toContainEqual(expect.objectContaining({ mark: '+', newLine: 1, text: expect.stringContaining('within 45 days') }));
    expect(linesOf(data, 'agentInstruction').map((line) => line.mark)).toEqual(['-', '+']);
    expect(data.fields).toEqual([]);
    const text = textOf(result);
    expect(text).toMatch(/^ {2}- <untrusted-data-[0-9a-f]+>.*30 days/m);
    expect(text).toMatch(/^ {2}\+ <untrusted-data-[0-9a-f]+>.*45 days/m);
    expect(apiRequests(sandbox)).toHaveLength(2);
  });

  it('shows a draft with no original whole, as a new article', async () => {
    const data = structured(await call('compare_article_draft', { draftArticleId: sandbox.seed.articles.giftCardsDraft }));
    expect(data.outcome).toBe('new');
    expect(data.liveArticleId).toBeNull();
    expect(linesOf(data, 'mainKnowledge').every((line) => line.mark === '+')).toBe(true);
    expect(data.lists).toContainEqual({ field: 'questions', added: ['Do you sell gift cards?', 'Do gift cards expire?'], removed: [] });
    expect(data.fields.find((field: { field: string }) => field.field === 'parentFolderId')).toMatchObject({ after: sandbox.seed.folders.accountReturns, afterName: 'Account & Returns' });
  });

  it('refuses a live article and an unknown id, naming where drafts are listed', async () => {
    const live = await call('compare_article_draft', { draftArticleId: sandbox.seed.articles.returnsPolicy });
    expect(live.isError).toBe(true);
    expect(textOf(live)).toContain('is a live article, not a draft');
    const unknown = await call('compare_article_draft', { draftArticleId: 'no-such-draft' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('list_articles');
  });

  it('flags the draft as stale once the live article moves past its version', async () => {
    const returnsPolicy = sandbox.seed.articles.returnsPolicy;
    structured(await call('update_article', { articleId: returnsPolicy, keywords: ['return', 'returns', 'refund', 'exchange', 'return label', 'final sale', 'store credit'] }));
    const result = await call('compare_article_draft', { draftArticleId: sandbox.seed.articles.returnsPolicyDraft });
    const data = structured(result);
    expect(data.stale).toBe(true);
    expect(data.liveVersion).toBe(data.originalArticleVersion + 1);
    // The live article's later keyword is what publishing the stale draft would remove.
    expect(data.lists).toContainEqual({ field: 'keywords', added: [], removed: ['store credit'] });
    expect(textOf(result)).toContain('WARNING: Stale draft');
    const review = structured(await call('wait_for_refine_session', { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent }));
    expect(review.changes[0].draftReview.stale).toBe(true);
    expect(review.warnings.some((warning: string) => warning.startsWith('Stale draft'))).toBe(true);
  });
});

describe('compare_rule_versions', () => {
  const ruleId = () => sandbox.seed.rules.whereIsMyOrder;

  it('compares the active version with the one before it by default', async () => {
    const result = await call('compare_rule_versions', { ruleId: ruleId() });
    const data = structured(result);
    expect(data.from).toMatchObject({ versionId: 'v1', status: 'HISTORICAL', active: false });
    expect(data.to).toMatchObject({ versionId: 'v2', status: 'PUBLISHED', active: true });
    const message = data.changes.find((change: { path: string }) => change.path === 'flowConfig.message');
    expect(message.before).toContain('share the tracking link');
    expect(message.after).toContain('Look up order status');
    expect(data.changes[0].path).toBe('status');
    expect(textOf(result)).toMatch(/- flowConfig\.message: <untrusted-data-[0-9a-f]+>Ask for the order number, then share/);
    expect(apiRequests(sandbox).map((request) => request.path)).toEqual([
      `/v2/hc-rules/${ruleId()}/versions/public`,
      `/v2/hc-rules/${ruleId()}/versions/v1/public`,
      `/v2/hc-rules/${ruleId()}/versions/v2/public`,
    ]);
  });

  it('takes explicit versions without reading the history, and explains a version the rule lacks', async () => {
    const data = structured(await call('compare_rule_versions', { ruleId: ruleId(), fromVersionId: 'v2', toVersionId: 'v3' }));
    expect(data.to).toMatchObject({ versionId: 'v3', status: 'DRAFT' });
    expect(apiRequests(sandbox)).toHaveLength(2);
    const missing = await call('compare_rule_versions', { ruleId: ruleId(), toVersionId: 'v9' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('its versions: v3, v2, v1');
  });
});
