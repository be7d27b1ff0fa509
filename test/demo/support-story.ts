import type { DemoSession } from './session.js';

interface Conversation {
  id: string;
  agentName?: string;
  subjectPreview?: string;
  events?: Array<{ id: string; role: string; message?: string; approved?: boolean; feedback?: string }>;
}

/** A support engineer sees how each agent is doing, reads the thumbs-down answers and tries the agent. */
export async function supportStory(demo: DemoSession): Promise<void> {
  demo.step('Which agents are there? (a resource: read-only context the client can attach)');
  await demo.read('svc://agents', 6);
  const { agents } = await demo.call<{ agents: Array<{ id: string; name: string }> }>('list_agents', {}, 4);

  demo.step('How is each agent doing over the last 200 days? One call, counted agent by agent');
  await demo.call('conversation_stats', { since: '200d', groupBy: ['agent'] }, 12);

  demo.step('The prompt a client offers for this job');
  await demo.prompt('triage_negative_answers', { since: '30d' }, 6);

  demo.step("Last month's thumbs-down conversations, each naming its agent");
  const negative = await demo.call<{ interactions: Conversation[] }>('export_conversations', { since: '30d', feedback: 'negative' }, 6);
  const first = negative.interactions[0];
  if (first) {
    demo.step(`Read one (${first.agentName}): ${first.subjectPreview ?? first.id}`);
    for (const event of first.events ?? []) {
      const rating = event.approved === false ? '  👎' : event.approved === true ? '  👍' : '';
      demo.say(`${event.role.padEnd(7)} ${event.message ?? `(${event.role} event)`}${rating}${event.feedback ? `  — "${event.feedback}"` : ''}`);
    }
  }

  const agent = agents[0];
  demo.step(`Ask ${agent.name} a question`);
  const { events } = await demo.call<{ events: Array<{ id: string; interactionId: string; role: string; usedArticles?: Array<{ title: string }> }> }>(
    'generate_answer',
    { botId: agent.id, content: 'How long does standard shipping take?' },
    6,
  );
  const reply = events.find((event) => event.role === 'svcbot');
  if (!reply) throw new Error('the agent did not reply');
  demo.say(`used articles: ${(reply.usedArticles ?? []).map((article) => article.title).join(', ') || 'none (escalated)'}`);
  demo.step('Record a thumbs-up on that answer');
  await demo.call('give_feedback', { interactionId: reply.interactionId, eventId: reply.id, approved: true }, 4);

  demo.step("Export 120 days (longer than the API's 90-day window): progress by agent and window");
  await demo.call('export_conversations', { since: '120d', maxConversations: 1000 }, 8);
}
