import { SEED } from '../../src/sandbox/seed-ids.js';
import type { DemoSession } from './session.js';

interface Session {
  warnings?: string[];
  iterations?: Array<{ confidence?: string; summary?: string; changes?: Array<{ draftArticleId?: string; draftReview?: { verdict?: string } }> }>;
}

interface DraftReview {
  verdicts: Record<string, number>;
  drafts: Array<{ draftArticleId: string; title: string; verdict: string }>;
}

/**
 * A refine session proposes a fix for a thumbs-down answer "with high confidence". Its linked
 * draft predates the session and changes something else; the review shows it before anyone publishes.
 */
export async function reviewStory(demo: DemoSession): Promise<void> {
  demo.step('The refine session of a thumbs-down answer about returns');
  const session = await demo.call<Session>('get_refine_session', { interactionId: SEED.negativeConversation, eventId: SEED.negativeEvent }, 8);
  const iteration = session.iterations?.[0];
  demo.say(`the session claims (${iteration?.confidence} confidence): ${iteration?.summary}`);
  const draftId = iteration?.changes?.find((change) => change.draftArticleId)?.draftArticleId;
  if (!draftId) throw new Error('the seeded refine session has no linked draft');

  demo.step('What would publishing its draft really change?');
  const review = await demo.call<DraftReview>('compare_article_draft', { draftArticleId: draftId }, 16);
  demo.say('→ the draft changes the return window from 30 to 45 days, which the session never mentions,');
  demo.say('  and it was written before the session began: do not publish it as this fix.');
  demo.say(review.drafts[0]?.verdict === 'stale' ? '→ decision: the draft is stale and changes policy; rejected.' : '→ decision: the draft is rejected until its return-window change is explained.');
  if (!session.warnings?.length) throw new Error('the review did not warn about the draft');

  demo.step('Every draft still waiting for review, one verdict each, in one call');
  const pending = await demo.call<{ articles: Array<{ id: string }> }>('list_articles', { type: 'draft', pending: true }, 4);
  const all = await demo.call<DraftReview>('compare_article_draft', { draftArticleIds: pending.articles.map((article) => article.id) }, 3);
  for (const draft of all.drafts) demo.say(`${draft.verdict.padEnd(9)} "${draft.title}" (${draft.draftArticleId})`);

  demo.step('And what changed in the active version of the "where is my order" rule?');
  await demo.call('compare_rule_versions', { ruleId: SEED.rules.whereIsMyOrder }, 12);
}
