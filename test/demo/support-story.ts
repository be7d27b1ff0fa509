import type { DemoSession } from './session.js';

interface Conversation {
  id: string;
  subjectPreview?: string;
  events?: Array<{ id: string; role: string; message?: string; approved?: boolean; feedback?: string }>;
}

/** A support engineer reviews last week's negative feedback and tries the agent on a question. */
export async function supportStory(demo: DemoSession): Promise<void> {
  demo.step('Find the agents');
  const { agents } = await demo.call<{ agents: Array<{ id: string; name: string }> }>('list_agents');

  demo.step('Last week\'s conversations with negative feedback');
  const negative = await demo.call<{ interactions: Conversation[]; count: number }>('export_conversations', { since: '7d', feedback: 'negative' }, 8);

  const first = negative.interactions[0];
  if (first) {
    demo.step(`Read one: ${first.subjectPreview ?? first.id}`);
    for (const event of first.events ?? []) {
      const rating = event.approved === false ? '  👎' : event.approved === true ? '  👍' : '';
      console.log(`   ${event.role.padEnd(7)} ${event.message ?? `(${event.role} event)`}${rating}${event.feedback ? `  — "${event.feedback}"` : ''}`);
    }
  }

  const agent = agents[0];
  demo.step(`Ask ${agent.name} a question`);
  const { events } = await demo.call<{ events: Array<{ id: string; interactionId: string; role: string; usedArticles?: Array<{ title: string }> }> }>(
    'generate_answer',
    { botId: agent.id, content: 'How long does standard shipping take?' },
    12,
  );
  const reply = events.find((event) => event.role === 'svcbot');
  if (reply) {
    console.log(`   used articles: ${(reply.usedArticles ?? []).map((article) => article.title).join(', ') || 'none (escalated)'}`);
    demo.step('Record a thumbs-up on that answer');
    await demo.call('give_feedback', { interactionId: reply.interactionId, eventId: reply.id, approved: true });
  }

  demo.step('Export 120 days (longer than the API\'s 90-day window) with progress');
  await demo.call('export_conversations', { since: '120d', maxConversations: 1000, view: 'compact' }, 9);
}
