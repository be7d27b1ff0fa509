import type { PreviewContext } from '../../src/engine/define.js';
import { DAY_MS } from '../../src/engine/inputs.js';
import { isRecord } from '../../src/json.js';
import { records } from './records.js';

/** What each role of the spec's Events table is, as a warning names it. */
const ROLE_NAMES: Readonly<Record<string, string>> = {
  user: "a customer's message (role user)",
  agent: "a human agent's message (role agent)",
  otherbot: "another bot's message (role otherbot)",
  svcbot: "the agent's answer (role svcbot)",
};

/** A role as a warning names it; one the spec does not list is quoted as the API gave it. */
const roleName = (context: PreviewContext, role: unknown) => (typeof role === 'string' && Object.hasOwn(ROLE_NAMES, role) ? ROLE_NAMES[role] : `a message of role ${context.quote(role)}`);

/**
 * generate_answer: only role user runs the reply flow (spec); any other role is stored as it is,
 * into the customer's conversation when interactionId is given, and nothing answers it.
 */
export async function previewGenerateAnswer(input: { role?: string; interactionId?: string; botId?: string }, context: PreviewContext): Promise<string[]> {
  const role = input.role ?? 'user';
  if (role !== 'user') {
    context.warn(
      input.interactionId
        ? `Writes ${roleName(context, role)} into the customer's conversation ${input.interactionId} as it is, and nothing replies: only role user gets an answer. Leave role out to ask the agent.`
        : `Stores ${roleName(context, role)} in the agent's conversation as it is, and nothing replies: only role user gets an answer. Leave role out to ask the agent.`,
    );
  }
  // Spec: without interactionId, "a conversation is created or resolved for that agent".
  const where = input.interactionId ? `conversation ${input.interactionId}` : `a conversation the API creates or finds for agent ${input.botId}`;
  return [role === 'user' ? `Adds a customer message to ${where}; the agent answers it from the live articles of its folders.` : `Stores the message in ${where}.`];
}

/** The conversations a preview reads to find one: the most recently active of the longest window the list route takes. */
const LOOKUP_PAGE = 100;

/**
 * give_feedback: the spec takes a rating on any event of the conversation, but only the agent's
 * (svcbot) answers count in `resolved` and in every statistic. No route reads one conversation,
 * so the preview looks for it on the first page of the most recently active ones (one request).
 */
export async function previewFeedback(input: { interactionId: string; eventId: string; approved?: boolean | null }, context: PreviewContext): Promise<string[]> {
  const rating = input.approved === true ? 'thumbs up' : input.approved === false ? 'thumbs down' : input.approved === null ? 'no rating (clears it)' : undefined;
  if (rating === undefined) context.warn('approved is not given: the API asks for it when feedback changes (true up, false down, null clears), so this may change nothing.');
  const until = Date.now();
  const read = await context.read('list_conversations', { since: until - 90 * DAY_MS, until, limit: LOOKUP_PAGE });
  const conversation = 'value' in read ? records(read.value).find((item) => item.id === input.interactionId) : undefined;
  const lines = [`Sets ${rating ?? 'the rating given'} on event ${input.eventId} of conversation ${input.interactionId}; the conversation's resolved flag is then recomputed.`];
  if (!conversation) {
    const why = 'failed' in read ? `the conversations could not be read (${read.failed})` : `it is not among the ${LOOKUP_PAGE} most recently active conversations of the last 90 days`;
    return [...lines, `Who wrote the event could not be checked, as ${why}: feedback belongs on the agent's (svcbot) answers.`];
  }
  const event = (Array.isArray(conversation.events) ? conversation.events.filter(isRecord) : []).find((item) => item.id === input.eventId);
  if (!event) context.warn(`Event ${input.eventId} is not in conversation ${input.interactionId}: the API will refuse it (406) and nothing changes.`);
  else if (event.role !== 'svcbot') {
    context.warn(
      `Event ${input.eventId} is ${roleName(context, event.role)}, not the agent's (svcbot) answer: a rating on it counts in no statistic and does not move the conversation's resolved flag.`,
    );
  }
  return lines;
}
