import type { DemoSession } from './session.js';

interface Preview {
  sent?: boolean;
  effect?: string[];
  confirmToken?: string;
}

/**
 * A client without elicitation (a headless triage agent, or an editor that cannot ask): a write
 * answers with a preview of its effect and a confirmToken; only that token sends, once.
 */
export async function tokenStory(demo: DemoSession): Promise<void> {
  demo.step('A client that cannot ask its user: the first call only previews');
  const { interactions } = await demo.call<{ interactions: Array<{ id: string; events?: Array<{ id: string; role: string }> }> }>('list_conversations', { since: '7d', limit: 1 }, 3);
  const conversation = interactions[0];
  const answer = conversation?.events?.find((event) => event.role === 'svcbot');
  if (!conversation || !answer) throw new Error('no recent agent answer to rate');
  const args = { interactionId: conversation.id, eventId: answer.id, approved: false };
  const preview = await demo.call<Preview>('give_feedback', args, 14);
  if (preview.sent !== false || !preview.confirmToken) throw new Error('expected a preview with a confirmToken');

  demo.step('"confirm": true alone is not enough: still a preview, nothing sent');
  await demo.call<Preview>('give_feedback', { ...args, confirm: true }, 3);

  demo.step("The user agreed: the same call with the preview's token sends it");
  await demo.call('give_feedback', { ...args, confirm: preview.confirmToken }, 4);

  demo.step('The token was spent: using it again is refused, sends nothing and brings no new token');
  const again = await demo.call<Preview & { refused?: string }>('give_feedback', { ...args, confirm: preview.confirmToken }, 3, 'refusal');
  if (again.sent !== false || again.refused !== 'spent' || again.confirmToken) throw new Error('a spent token must not send twice');
}
