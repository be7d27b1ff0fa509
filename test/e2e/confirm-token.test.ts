import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answering, apiRequests, textOf } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';

const sandbox = useSandbox();
const admin = useConnection(sandbox);
const unconfirmed = useConnection(sandbox, { env: { SVC_CONFIRM: 'none' } });
/** Same workspace, another key. */
const otherKey = useConnection(sandbox, { key: 'readOnly' });
/** A client with elicitation that declines and keeps each question. */
const questions: string[] = [];
const asking = useConnection(sandbox, { elicit: answering(questions, { action: 'decline' }) });

interface Preview {
  sent: false;
  message: string;
  effect: string[];
  request: string;
  confirmToken: string;
  expiresAt: string;
}

function previewOf(result: CallToolResult): Preview {
  expect(result.isError).toBeFalsy();
  const preview = result.structuredContent as unknown as Preview;
  expect(preview.sent).toBe(false);
  expect(preview.confirmToken).toMatch(/^[0-9a-z]+\.[\w-]{19}\.[\w-]{43}$/);
  return preview;
}

/** A refused token: an error whose structured result names the reason; every reason but `spent` comes with a fresh preview. */
function refusalOf(result: CallToolResult, refused: 'spent' | 'mismatch' | 'expired' | 'invalid'): Preview & { refused: string } {
  expect(result.isError).toBe(true);
  const refusal = result.structuredContent as unknown as Preview & { refused: string };
  expect(refusal).toMatchObject({ sent: false, refused });
  if (refused === 'spent') {
    expect(refusal).not.toHaveProperty('confirmToken');
    expect(textOf(result)).not.toContain('"confirm": "');
  } else {
    expect(refusal.confirmToken).toMatch(/^[0-9a-z]+\.[\w-]{19}\.[\w-]{43}$/);
  }
  return refusal;
}

/** Requests that change something: every API request except the reads a preview makes. */
function writes() {
  return apiRequests(sandbox)
    .filter((request) => request.method !== 'GET' && request.path !== '/v2/hc-articles/ids/public')
    .map((request) => `${request.method} ${request.path}`);
}

describe('confirmation by token (no elicitation)', () => {
  it('confirm: true alone previews and sends nothing', async () => {
    const result = await admin.call('delete_article', { articleId: sandbox.seed.articles.warranty, confirm: true });
    const preview = previewOf(result);
    expect(preview.message).toContain('"confirm": true alone sends nothing');
    expect(textOf(result)).toContain(`"confirm": "${preview.confirmToken}"`);
    expect(writes()).toEqual([]);
  });

  it("sends with the preview's token exactly once; the second use is refused as spent, with no new token", async () => {
    const args = { articleId: sandbox.seed.articles.expressDelivery, title: 'Express delivery (next day)' };
    const first = previewOf(await admin.call('update_article', args));
    expect(writes()).toEqual([]);

    const sent = await admin.call('update_article', { ...args, confirm: first.confirmToken });
    expect(sent.isError).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({ id: args.articleId, title: args.title });
    expect(textOf(sent).split('\n')[0]).toMatch(new RegExp(`^Article ${args.articleId} updated, now version \\d+\\.$`));
    expect(writes()).toEqual([`PUT /v2/hc-articles/${args.articleId}/public`]);

    sandbox.clearRequests();
    const again = refusalOf(await admin.call('update_article', { ...args, confirm: first.confirmToken }), 'spent');
    expect(again.message).toContain('already sent its request');
    expect(writes()).toEqual([]);
  });

  it('refuses a token with changed arguments and sends nothing; the token still sends its own request', async () => {
    const articleId = sandbox.seed.articles.orderTracking;
    const preview = previewOf(await admin.call('update_article', { articleId, title: 'Tracking your order' }));
    const refused = refusalOf(await admin.call('update_article', { articleId, title: 'Something else', confirm: preview.confirmToken }), 'mismatch');
    expect(refused.message).toContain('issued for a different request');
    expect(refused.request).toContain('"title": "Something else"');
    expect(refused.confirmToken).not.toBe(preview.confirmToken);
    expect(writes()).toEqual([]);
    // The same token on another tool with the same path fails the same way.
    const otherTool = refusalOf(await admin.call('delete_article', { articleId, confirm: preview.confirmToken }), 'mismatch');
    expect(otherTool.message).toContain('issued for a different request');
    expect(writes()).toEqual([]);
    // Only a send spends a token: after the refusals it sends what it was issued for.
    expect((await admin.call('update_article', { articleId, title: 'Tracking your order', confirm: preview.confirmToken })).isError).toBeFalsy();
    expect(writes()).toEqual([`PUT /v2/hc-articles/${articleId}/public`]);
  });

  it('refuses a token issued for another API key', async () => {
    const args = { interactionId: 'conv-another-key' };
    const preview = previewOf(await admin.call('delete_conversation', args));
    const refused = refusalOf(await otherKey.call('delete_conversation', { ...args, confirm: preview.confirmToken }), 'mismatch');
    expect(refused.message).toContain('another API key');
    expect(writes()).toEqual([]);
  });

  it('refuses what is not a token, a string "true" included, as invalid', async () => {
    const args = { interactionId: 'conv-not-a-token' };
    for (const confirm of ['true', 'yes', ' ', 'x.y.z']) {
      refusalOf(await admin.call('delete_conversation', { ...args, confirm }), 'invalid');
    }
    expect(writes()).toEqual([]);
  });

  it('describes a conversation delete without reading anything: no route shows one conversation', async () => {
    const result = await admin.call('delete_conversation', { interactionId: 'conv-unseen' });
    const preview = previewOf(result);
    expect(preview.effect.join('\n')).toContain('permanent');
    expect(preview.effect.join('\n')).toContain('No read route shows one conversation by id');
    expect(apiRequests(sandbox)).toEqual([]);
  });
});

describe('effect previews', () => {
  it('names the live article a publish overwrites, its version, the diff, and warns when the draft is stale', async () => {
    const { articles } = sandbox.seed;
    const live = (await unconfirmed.call('get_articles', { articleIds: [articles.returnsPolicy] })).structuredContent as { articles: Array<{ version: number }> };
    const version = live.articles[0].version;
    const fresh = await admin.call('publish_article_draft', { articleId: articles.returnsPolicyDraft });
    const text = textOf(fresh);
    expect(text).toContain(`Overwrites live article`);
    expect(text).toContain('Returns and exchanges policy');
    expect(text).toContain(`(${articles.returnsPolicy}, version ${version}): version ${version} -> ${version + 1}.`);
    expect(text).toMatch(/mainKnowledge changes:\n\s+- .*within 30 days.*\n\s+\+ .*within 45 days/);
    expect(text).not.toContain('STALE');
    expect(text.indexOf('What it does:')).toBeLessThan(text.indexOf(`POST /v2/hc-articles/${articles.returnsPolicyDraft}/publish/public`));

    // Someone changes the live article after the draft was made: publishing would overwrite that.
    expect((await unconfirmed.call('update_article', { articleId: articles.returnsPolicy, keywords: ['return', 'refund'] })).isError).toBeFalsy();
    sandbox.clearRequests();
    const stale = textOf(await admin.call('publish_article_draft', { articleId: articles.returnsPolicyDraft }));
    expect(stale).toContain(`STALE: the draft was made from version ${version}, but the live article is now at version ${version + 1}`);
    expect(stale).toContain(`version ${version + 1} -> ${version + 2}`);
    expect(writes()).toEqual([]);
  });

  it('says a delete is permanent and names what it removes and what goes with it', async () => {
    const { articles, folders } = sandbox.seed;
    const article = previewOf(await admin.call('delete_article', { articleId: articles.returnsPolicy })).effect.join('\n');
    expect(article).toContain('Deletes live article');
    expect(article).toContain('Returns and exchanges policy');
    expect(article).toContain('permanent');
    expect(article).toContain('Account & Returns');
    expect(article).toContain(`Agents that stop answering from it: `);
    expect(article).toContain(`(${sandbox.seed.bots.storeAssistant})`);
    expect(article).toContain(`Drafts made from it stay:`);
    expect(article).toContain(articles.returnsPolicyDraft);

    const folder = previewOf(await admin.call('delete_folder', { folderId: folders.accountReturns })).effect.join('\n');
    expect(folder).toContain('Deletes folder');
    expect(folder).toContain('Account & Returns');
    expect(folder).toContain('permanent');
    expect(folder).toContain('Its assignments go with it');
    expect(folder).toMatch(/still holds \d+ article\(s\)/);
    expect(writes()).toEqual([]);
  });

  it('names both sides of a move and of an assignment', async () => {
    const { articles, folders, bots } = sandbox.seed;
    const move = previewOf(await admin.call('move_article', { articleId: articles.warranty, parentFolderId: folders.international })).effect.join('\n');
    expect(move).toMatch(/Moves article .*warranty.* from folder .*Account & Returns.* to folder .*International Shipping/s);
    expect(move).toMatch(/Agents answering from it: .* \(unchanged\)\./);
    const assign = previewOf(await admin.call('assign_folders_to_agent', { botId: bots.storeAssistant, folderIds: [folders.international, folders.accountReturns] })).effect.join('\n');
    expect(assign).toContain(bots.storeAssistant);
    expect(assign).toContain('International Shipping');
    expect(writes()).toEqual([]);
  });

  it('still offers the write when the target cannot be read, and says what could not be read', async () => {
    sandbox.injectFaults([{ path: '/v2/hc-articles/ids/public', status: 500 }]);
    const articleId = sandbox.seed.articles.passwordReset;
    const preview = previewOf(await admin.call('update_article', { articleId, active: true }));
    expect(preview.effect.join('\n')).toContain('Could not read the article(s) (HTTP 500)');
    const sent = await admin.call('update_article', { articleId, active: true, confirm: preview.confirmToken });
    expect(sent.isError).toBeFalsy();
    expect(writes()).toEqual([`PUT /v2/hc-articles/${articleId}/public`]);
  });

  it('asks through elicitation with the effect above the exact request', async () => {
    const articleId = sandbox.seed.articles.holidayCutoffs;
    const declined = await asking.call('delete_article', { articleId });
    expect(textOf(declined)).toContain('nothing was sent');
    expect(declined.structuredContent).not.toHaveProperty('confirmToken');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatch(/What it does:\n- Deletes live article "[^"]+" \(/);
    expect(questions[0]).toContain('permanent');
    expect(questions[0].indexOf('permanent')).toBeLessThan(questions[0].indexOf(`DELETE /v2/hc-articles/${articleId}/public`));
    expect(writes()).toEqual([]);
  });
});

describe('write results', () => {
  it('open with the new id and the next step', async () => {
    const result = await unconfirmed.call('create_article_draft', { articleId: sandbox.seed.articles.shippingTimes });
    const draftId = (result.structuredContent as { id: string }).id;
    expect(textOf(result).split('\n')[0]).toBe(
      `Draft ${draftId} created from article ${sandbox.seed.articles.shippingTimes} (version ${(result.structuredContent as { originalArticleVersion: number }).originalArticleVersion}); next: compare_article_draft, then publish_article_draft.`,
    );
  });
});

describe('token expiry (clock injected)', () => {
  let now = Date.now();
  const client = useConnection(sandbox, { engine: { now: () => now } });

  it('refuses a token past its expiry with a fresh preview, accepts one just before it, and refuses it once spent', async () => {
    const args = { interactionId: 'conv-expiry' };
    const old = previewOf(await client.call('delete_conversation', args));
    expect(Date.parse(old.expiresAt) - now).toBe(10 * 60_000);
    now += 10 * 60_000 + 1;
    const expired = refusalOf(await client.call('delete_conversation', { ...args, confirm: old.confirmToken }), 'expired');
    expect(expired.message).toContain(`expired at ${old.expiresAt}`);
    expect(writes()).toEqual([]);

    const current = previewOf(await client.call('delete_conversation', args));
    now += 10 * 60_000 - 1;
    const sent = await client.call('delete_conversation', { ...args, confirm: current.confirmToken });
    expect(sent.structuredContent).toMatchObject({ success: true });
    expect(writes()).toEqual(['DELETE /v2/hc-interactions/conv-expiry/public']);

    // A spent token brings no new one, with the clock standing still or not.
    refusalOf(await client.call('delete_conversation', { ...args, confirm: current.confirmToken }), 'spent');
    expect(writes()).toHaveLength(1);
  });
});
