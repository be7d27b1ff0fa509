import type { DemoSession } from './session.js';

/** A year of conversations read once into the workspace mirror, then questions answered from it in one call each. */
export async function mirrorStory(demo: DemoSession): Promise<void> {
  demo.step('Read the workspace once into its local mirror: a year of conversations, every agent, and the knowledge');
  await demo.call('sync_workspace', {}, 6);

  demo.step('Per month over the last year, which agent had the highest thumbs-down rate? One call, from the mirror, no request');
  await demo.call('conversation_stats', { since: '365d', groupBy: ['agent', 'month'] }, 14);

  demo.step("A question no tool answers, in SQL: this week's thumbs-down answers without a note, with their agents");
  await demo.call(
    'query_workspace',
    {
      sql: `SELECT a.name AS agent, c.id AS conversation, left(e.message, 60) AS answer
  FROM events e JOIN conversations c ON c.id = e."interactionId" JOIN agents a ON a.id = c."botId"
  WHERE e.role = 'svcbot' AND e.approved = false AND coalesce(e.feedback, '') = '' AND c."createdAt" >= now() - INTERVAL 7 DAY
  ORDER BY c."createdAt" DESC`,
      maxRows: 8,
    },
    12,
  );

  demo.step('Why did the thumbs-down rate move last week? Movers and knowledge changes in one call');
  await demo.call('explain_change', { since: '7d' }, 18);
}
