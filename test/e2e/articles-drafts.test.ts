/**
 * The articles tools (tools/articles.ts) end to end, draft review: compare_article_draft, and the
 * staleness a publish preview and a refine session's review share with it.
 */
import { describe, expect, it } from 'vitest';
import { apiRequests, connect, sandboxEnv, textOf } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';

const { sandbox, call } = useServer({ env: { SVC_CONFIRM: 'none' } });

type Line = { mark: string; text: string; oldLine?: number; newLine?: number };
const linesOf = (comparison: Record<string, any>, field: string): Line[] =>
  comparison.text.find((entry: { field: string }) => entry.field === field).hunks.flatMap((hunk: { lines: Line[] }) => hunk.lines);

describe('compare_article_draft', () => {
  const seeded = () => sandbox.seed.articles;
  const reviewOf = async (args: Record<string, unknown>) => {
    const result = await call('compare_article_draft', args);
    return { result, data: structured(result) };
  };

  it('shows the changed sentences of the seeded draft, and its misc change, which a publish writes too', async () => {
    const { result, data } = await reviewOf({ draftArticleId: seeded().returnsPolicyDraft });
    const [draft] = data.drafts;
    expect(draft).toMatchObject({ verdict: 'changes', liveArticleId: seeded().returnsPolicy });
    const main = linesOf(draft, 'mainKnowledge');
    expect(main).toContainEqual(expect.objectContaining({ mark: '-', oldLine: 1, text: expect.stringContaining('within 30 days') }));
    expect(main).toContainEqual(expect.objectContaining({ mark: '+', newLine: 1, text: expect.stringContaining('within 45 days') }));
    expect(linesOf(draft, 'agentInstruction').map((line) => line.mark)).toEqual(['-', '+']);
    // Design section 13: every field a publish writes. The seeded draft's misc differs from its live article's
    // (an earlier version of this test expected no field change here, against that contract).
    expect(draft.fields).toEqual([{ field: 'misc', before: {}, after: { note: 'Extended return window for the spring campaign' } }]);
    const text = textOf(result);
    expect(text).toMatch(/^ {2}- You can return unworn items with the original tags within 30 days of delivery for a full refund to the original payment method\.$/m);
    expect(text).toMatch(/^ {2}\+ You can return unworn items with the original tags within 45 days/m);
    // The unchanged sentence after it, as context.
    expect(text).toMatch(/^ {4}Start a return from Orders/m);
    // One envelope for the draft (issue 33), not one per sentence: the notice, then one opening and one closing tag.
    expect(text.match(/<untrusted-data-[0-9a-f]+>/g)).toHaveLength(2);
    expect(text.match(/<\/untrusted-data-[0-9a-f]+>/g)).toHaveLength(1);
    expect(text).toMatch(/^<untrusted-data-[0-9a-f]+>\ntitle: Returns and exchanges policy\n/m);
    expect(text).not.toContain('publishing changes nothing');
    expect(apiRequests(sandbox)).toHaveLength(2);
  });

  it('shows a draft with no original whole, as a new article', async () => {
    const { data } = await reviewOf({ draftArticleId: seeded().giftCardsDraft });
    const [draft] = data.drafts;
    expect(draft.verdict).toBe('new');
    expect(draft.liveArticleId).toBeNull();
    expect(linesOf(draft, 'mainKnowledge').every((line) => line.mark === '+')).toBe(true);
    expect(draft.lists).toContainEqual({ field: 'questions', added: ['Do you sell gift cards?', 'Do gift cards expire?'], removed: [] });
    expect(draft.fields.find((field: { field: string }) => field.field === 'parentFolderId')).toMatchObject({ after: sandbox.seed.folders.accountReturns, afterName: 'Account & Returns' });
  });

  it('refuses a live article and an unknown id, naming where drafts are listed', async () => {
    const live = await call('compare_article_draft', { draftArticleId: seeded().returnsPolicy });
    expect(live.isError).toBe(true);
    expect(textOf(live)).toContain('is a live article, not a draft');
    const unknown = await call('compare_article_draft', { draftArticleId: 'no-such-draft' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('list_articles');
    const neither = await call('compare_article_draft', {});
    expect(neither.isError).toBe(true);
    expect(textOf(neither)).toContain('draftArticleId');
  });

  it('reviews every pending draft in one call: one verdict each, three reads whatever their number', async () => {
    const pending = structured(await call('list_articles', { type: 'draft', pending: true })).articles.map((article: { id: string }) => article.id);
    expect(pending).toEqual(expect.arrayContaining([seeded().returnsPolicyDraft, seeded().giftCardsDraft]));
    sandbox.clearRequests();
    const { result, data } = await reviewOf({ draftArticleIds: [...pending, seeded().returnsPolicy, 'no-such-draft'] });
    expect(data.drafts.map((draft: { draftArticleId: string; verdict: string }) => [draft.draftArticleId, draft.verdict])).toEqual(
      pending.map((id: string) => [id, id === seeded().giftCardsDraft ? 'new' : 'changes']),
    );
    expect(data.verdicts).toEqual({ changes: pending.length - 1, new: 1 });
    expect(data).toMatchObject({ notDrafts: [seeded().returnsPolicy], notFound: ['no-such-draft'] });
    expect(textOf(result)).toMatch(/^\d+ drafts: 1 new, \d+ with changes\.$/m);
    // The drafts, the live articles they came from, and the folders that name a new article's.
    expect(apiRequests(sandbox)).toHaveLength(3);
    const tooMany = await call('compare_article_draft', { draftArticleIds: Array.from({ length: 21 }, (_, index) => `draft-${index}`) });
    expect(tooMany.isError).toBe(true);
    expect(textOf(tooMany)).toMatch(/draftArticleIds.*at most 20/);
    // One rule broken, one line (it gave two).
    expect(
      textOf(tooMany)
        .split('\n')
        .filter((line) => line.startsWith('- ')),
    ).toHaveLength(1);
    const overByOne = await call('compare_article_draft', { draftArticleId: 'draft-x', draftArticleIds: Array.from({ length: 20 }, (_, index) => `draft-${index}`) });
    expect(textOf(overByOne)).toMatch(/^- draftArticleIds: at most 20 drafts in one call$/m);
  });

  it('tells a draft that changes only origin or misc from an identical one', async () => {
    // The seeded live article was made in the dashboard (UI_CREATED); a draft made through the API carries API_CREATED.
    const live = seeded().shippingTimes;
    const draft = structured(await call('create_article_draft', { articleId: live }));
    expect(draft.origin).not.toBe(structured(await call('get_articles', { articleIds: [live] })).articles[0].origin);
    const { result, data } = await reviewOf({ draftArticleId: draft.id });
    expect(data.drafts[0].verdict).toBe('changes');
    expect(data.drafts[0].fields).toEqual([{ field: 'origin', before: 'UI_CREATED', after: 'API_CREATED' }]);
    expect(textOf(result)).not.toContain('publishing changes nothing');
    const misc = structured(await call('create_article_draft', { articleId: live, misc: { campaign: 'spring' } }));
    const miscOnly = (await reviewOf({ draftArticleId: misc.id })).data.drafts[0];
    expect(miscOnly.fields.map((field: { field: string }) => field.field)).toContain('misc');
  });

  it('does not call a draft stale for its own publish, only for a later change to the live article', async () => {
    const live = seeded().passwordReset;
    const draft = structured(await call('create_article_draft', { articleId: live, title: 'Resetting your password (draft)' }));
    // Published with a different title than the draft's, so the draft still differs from the live article.
    const published = structured(await call('publish_article_draft', { articleId: draft.id, title: 'Reset your password' }));
    expect(published.version).toBe(draft.originalArticleVersion + 1);
    const own = (await reviewOf({ draftArticleId: draft.id })).data.drafts[0];
    expect(own).toMatchObject({ verdict: 'changes', isDraftPublished: true });
    expect(own.warnings.join(' ')).not.toContain('Stale');
    // The publish preview agrees: no STALE line.
    const previewing = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'writes' }) });
    try {
      const preview = await previewing.call('publish_article_draft', { articleId: draft.id });
      expect(textOf(preview)).toContain('Overwrites live article');
      expect(textOf(preview)).not.toContain('STALE');
    } finally {
      await previewing.close();
    }
    // Someone else changes the live article: now publishing the draft again would undo that.
    const { keywords } = structured(await call('get_articles', { articleIds: [live] })).articles[0];
    structured(await call('update_article', { articleId: live, keywords: [...keywords, 'two-factor'] }));
    const later = (await reviewOf({ draftArticleId: draft.id })).data.drafts[0];
    expect(later.verdict).toBe('stale');
    expect(later.lists).toContainEqual({ field: 'keywords', added: [], removed: ['two-factor'] });
    // Pending drafts leave the published one out; all drafts still list it.
    const ids = async (args: Record<string, unknown>) => structured(await call('list_articles', args)).articles.map((article: { id: string }) => article.id);
    expect(await ids({ type: 'draft', pending: true })).not.toContain(draft.id);
    expect(await ids({ pending: true })).not.toContain(draft.id);
    expect(await ids({ type: 'draft' })).toContain(draft.id);
    const livePending = await call('list_articles', { type: 'live', pending: true });
    expect(livePending.isError).toBe(true);
    expect(textOf(livePending)).toContain('pending');
  });

  it('does not call a draft stale that was published twice, then edited by its own author; a later change to the live article makes it stale (issue 33)', async () => {
    const live = seeded().shippingTimes;
    const draft = structured(await call('create_article_draft', { articleId: live, title: 'Shipping times and costs (draft)' }));
    structured(await call('publish_article_draft', { articleId: draft.id }));
    const second = structured(await call('publish_article_draft', { articleId: draft.id }));
    expect(second.version).toBe(draft.originalArticleVersion + 2);
    // Each write in a later millisecond than the one before, as writes by people are: the verdict reads who wrote last.
    const nextMillisecond = () => new Promise((resolve) => setTimeout(resolve, 2));
    await nextMillisecond();
    structured(await call('update_article', { articleId: draft.id, title: 'Shipping: times and costs' }));
    const edited = (await reviewOf({ draftArticleId: draft.id })).data.drafts[0];
    expect(edited).toMatchObject({ verdict: 'changes', isDraftPublished: true, liveVersion: draft.originalArticleVersion + 2 });
    expect(edited.warnings.join(' ')).not.toContain('Stale');
    await nextMillisecond();
    structured(await call('update_article', { articleId: live, keywords: ['shipping', 'delivery time'] }));
    expect((await reviewOf({ draftArticleId: draft.id })).data.drafts[0].verdict).toBe('stale');
  });

  it('flags the draft as stale once the live article moves past its version', async () => {
    const returnsPolicy = seeded().returnsPolicy;
    structured(await call('update_article', { articleId: returnsPolicy, keywords: ['return', 'returns', 'refund', 'exchange', 'return label', 'final sale', 'store credit'] }));
    const { result, data } = await reviewOf({ draftArticleId: seeded().returnsPolicyDraft });
    const [draft] = data.drafts;
    expect(draft.verdict).toBe('stale');
    expect(draft.liveVersion).toBe(draft.originalArticleVersion + 1);
    // The live article's later keyword is what publishing the stale draft would remove.
    expect(draft.lists).toContainEqual({ field: 'keywords', added: [], removed: ['store credit'] });
    expect(textOf(result)).toContain('WARNING: Stale draft');
    const review = structured(await call('wait_for_refine_session', { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent }));
    expect(review.changes[0].draftReview.verdict).toBe('stale');
    expect(review.warnings.some((warning: string) => warning.startsWith('Stale draft'))).toBe(true);
  });
});
