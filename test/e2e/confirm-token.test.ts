import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answering, apiRequests, textOf } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';
import { SEED } from '../../src/sandbox/index.js';

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
  warnings?: string[];
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

/** A refused token: an error whose structured result names the reason, and, whatever the reason, no token to send on the next turn (design 15). */
function refusalOf(result: CallToolResult, refused: 'spent' | 'mismatch' | 'expired' | 'invalid'): Preview & { refused: string } {
  expect(result.isError).toBe(true);
  const refusal = result.structuredContent as unknown as Preview & { refused: string };
  expect(refusal).toMatchObject({ sent: false, refused });
  expect(refusal).not.toHaveProperty('confirmToken');
  expect(textOf(result)).not.toContain('"confirm": "');
  expect(textOf(result)).not.toMatch(/[0-9a-z]+\.[\w-]{11,19}\.[\w-]{43}/);
  expect(refusal.message).toContain('for a new preview');
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
    expect(text).toMatch(/mainKnowledge:\n\s+- .*within 30 days.*\n\s+\+ .*within 45 days/);
    expect(text).not.toContain('STALE');
    expect(text.indexOf('What it does:')).toBeLessThan(text.indexOf(`POST /v2/hc-articles/${articles.returnsPolicyDraft}/publish/public`));

    // Someone changes the live article after the draft was made: publishing would overwrite that.
    expect((await unconfirmed.call('update_article', { articleId: articles.returnsPolicy, keywords: ['return', 'refund'] })).isError).toBeFalsy();
    sandbox.clearRequests();
    const stale = textOf(await admin.call('publish_article_draft', { articleId: articles.returnsPolicyDraft }));
    // The warning in the first lines, before what the write does (issue 33).
    expect(stale.split('\n').slice(0, 3).join('\n')).toContain(`WARNING: STALE draft: it was made from version ${version}, but the live article is now at version ${version + 1}`);
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

/** A preview's warnings: structured, and the lines right under its first line, before what the write does (issue 33). */
function warningsOf(result: CallToolResult): string[] {
  const preview = previewOf(result);
  const text = textOf(result);
  const lines = text.split('\n').filter((line) => !line.includes('never as instructions'));
  const shown = lines.slice(1, 1 + (preview.warnings?.length ?? 0));
  expect(shown).toEqual((preview.warnings ?? []).map((warning) => `WARNING: ${warning}`));
  if (shown.length) expect(text.indexOf('WARNING: ')).toBeLessThan(text.indexOf('What it does:'));
  return preview.warnings ?? [];
}

describe('previews say what a write cannot do and warn on the risky ones, first (issue 33)', () => {
  const seed = SEED;
  it('create_tag: no route applies a tag to a conversation', async () => {
    expect(warningsOf(await admin.call('create_tag', { tagGroupId: seed.tagGroups.topics, tagName: 'refund' }))).toEqual([
      expect.stringMatching(/^No route of the API applies a tag to a conversation/),
    ]);
  });

  it("generate_answer: a role other than user writes into the customer's conversation and gets no reply; user warns of nothing", async () => {
    const into = warningsOf(await admin.call('generate_answer', { interactionId: seed.negativeConversation, content: 'Sorry!', role: 'agent' }));
    expect(into).toEqual([expect.stringMatching(new RegExp(`^Writes a human agent's message \\(role agent\\) into the customer's conversation ${seed.negativeConversation} .*nothing replies`))]);
    expect(warningsOf(await admin.call('generate_answer', { botId: seed.bots.storeAssistant, content: 'note', role: 'otherbot' }))).toEqual([
      expect.stringMatching(/^Stores another bot's message \(role otherbot\) in the agent's conversation as it is, and nothing replies/),
    ]);
    for (const args of [
      { interactionId: seed.negativeConversation, content: 'And sale items?' },
      { botId: seed.bots.storeAssistant, content: 'Hi' },
    ]) {
      expect(warningsOf(await admin.call('generate_answer', args))).toEqual([]);
    }
    expect(writes()).toEqual([]);
  });

  it("give_feedback: a customer's message, an event not in the conversation and a missing approved are warned; the agent's answer is not", async () => {
    const ids = { interactionId: seed.negativeConversation };
    expect(warningsOf(await admin.call('give_feedback', { ...ids, eventId: seed.negativeUserEvent, approved: false }))).toEqual([
      expect.stringMatching(/is a customer's message \(role user\), not the agent's \(svcbot\) answer: a rating on it counts in no statistic/),
    ]);
    expect(warningsOf(await admin.call('give_feedback', { ...ids, eventId: seed.negativeEvent, approved: false }))).toEqual([]);
    expect(warningsOf(await admin.call('give_feedback', { ...ids, eventId: 'no-such-event', approved: true }))).toEqual([expect.stringContaining('the API will refuse it (406)')]);
    expect(warningsOf(await admin.call('give_feedback', { ...ids, eventId: seed.negativeEvent }))).toEqual([expect.stringMatching(/^approved is not given/)]);
    // An unknown conversation: the preview says it could not check, and warns of nothing it does not know.
    const unknown = previewOf(await admin.call('give_feedback', { interactionId: 'conv-unseen', eventId: 'e', approved: true }));
    expect(unknown.warnings).toBeUndefined();
    expect(unknown.effect.join('\n')).toContain('Who wrote the event could not be checked');
    expect(writes()).toEqual([]);
  });

  it('add_data_step: a masked "********" on a new step is warned; on an update of a stored step (id) it keeps the secret', async () => {
    const masked = { Authorization: { hide: true, value: '********' } };
    const args = { toolId: seed.tools.orderStatus, url: 'https://api.example.com/orders', headers: masked, body: { auth: { token: '********' } } };
    expect(warningsOf(await admin.call('add_data_step', args))).toEqual([expect.stringMatching(/^headers\.Authorization, body\.auth\.token hold the masked "\*{8}".*this step is new/)]);
    expect(warningsOf(await admin.call('add_data_step', { ...args, id: seed.dataSteps.orderStatusLookup }))).toEqual([]);
    expect(warningsOf(await admin.call('add_data_step', { ...args, headers: { Authorization: { hide: true, value: 'Bearer real' } }, body: undefined }))).toEqual([]);
  });

  it('a preview that shows part of a long change says so first (no silent cut)', async () => {
    const mainKnowledge = Array.from({ length: 40 }, (_, index) => `Sentence number ${index + 1} of the new text.`).join(' ');
    const warnings = warningsOf(await admin.call('update_article', { articleId: seed.articles.warranty, mainKnowledge }));
    expect(warnings).toContainEqual(expect.stringMatching(/^This preview shows the first 24 changed lines of mainKnowledge; \d+ more are not shown here/));
  });

  it('the elicitation question carries the warnings right under its first line', async () => {
    questions.length = 0;
    await asking.call('create_tag', { tagGroupId: seed.tagGroups.topics, tagName: 'refund' });
    expect(questions[0].split('\n').slice(0, 2)).toEqual(['Create a tag: send this request to the workspace API?', expect.stringMatching(/^WARNING: No route of the API applies a tag/)]);
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

  it('refuses a token past its expiry with no new token, accepts one just before it, and refuses it once spent', async () => {
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
