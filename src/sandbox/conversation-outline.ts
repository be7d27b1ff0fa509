/**
 * A conversation told as what happened in it (who asked what and when, what the agent replied,
 * whether a teammate took over, the ratings), and the stored conversation with its events that it
 * makes. The seed's scripted conversations and the generated ones are both written this way, so
 * the two follow one set of rules: helpdesk ticket ids, hand-over messages, where thumbs and CSAT
 * land, and the status (`Escalated to a human agent` after a hand-over, else `Open` for a day,
 * then `Closed`).
 */
import type { RecordedReply } from './reply.js';
import { DAY_MS, MINUTE_MS, SECOND_MS, computeHasFeedback, computeResolved, newConversation, newEvent, subjectOf } from './state.js';
import type { Channel, Conversation, EventRole, EventType, StoredAttachment, StoredEvent, TagReference } from './types.js';

/** One exchange; times are milliseconds after the conversation's creation. */
export interface OutlineTurn {
  userAt: number;
  message: string;
  replyAt: number;
  reply: RecordedReply;
}

export interface OutlineCustomer {
  first: string;
  last: string;
  tier: 'gold' | 'standard';
  orders: number;
}

export interface ConversationOutline {
  id: string;
  companyId: string;
  botId: string;
  createdAt: number;
  /** the clock at start: a conversation younger than a day is still `Open` */
  now: number;
  source: string;
  channel: Channel;
  /** the helpdesk ticket of a conversation synced from one: its externalId, url and the messages' external ids */
  ticket: number | null;
  /** known customers get userAttributes, copied into metadata.user_attributes */
  customer: OutlineCustomer | null;
  /** metadata.locale, when the conversation has one */
  locale: string | null;
  /** the id of event k (1-based, in order) */
  eventId: (k: number) => string;
  turns: OutlineTurn[];
  /** on the first message */
  tags: TagReference[];
  attachment: StoredAttachment | null;
  /** a teammate's internal note and message after an escalation; times as for turns */
  handOver: { noteAt: number; messageAt: number; teammate: string; greeting: string } | null;
  /** thumbs on the reply of one turn */
  thumbs: { turn: number; approved: boolean | null; resolved: boolean | null; note: string | null } | null;
  /** on the last reply */
  csat: number | null;
}

export function buildConversation(outline: ConversationOutline): Conversation {
  const { ticket, customer } = outline;
  const userAttributes = customer && {
    email: `${customer.first.toLowerCase()}.${customer.last.toLowerCase()}@example.com`,
    name: `${customer.first} ${customer.last}`,
    tier: customer.tier,
    orderCount: customer.orders,
  };
  const conversation = newConversation({
    id: outline.id,
    createdAt: outline.createdAt,
    externalCreatedAt: ticket === null ? null : outline.createdAt - 2 * MINUTE_MS,
    source: outline.source,
    channel: outline.channel,
    externalId: ticket === null ? null : String(ticket),
    url: ticket === null ? null : `https://northwind.helpdesk.example/tickets/${ticket}`,
    subjectPreview: subjectOf(outline.turns[0].message),
    userAttributes,
    companyId: outline.companyId,
    botId: outline.botId,
    metadata: {},
  });
  if (outline.locale !== null) conversation.metadata.locale = outline.locale;
  if (userAttributes) conversation.metadata.user_attributes = { ...userAttributes };
  const replies = addEvents(conversation, outline);
  if (outline.thumbs) {
    const rated = replies[outline.thumbs.turn];
    rated.approved = outline.thumbs.approved;
    rated.resolved = outline.thumbs.resolved;
    rated.feedback = outline.thumbs.note;
  }
  if (outline.csat !== null) replies[replies.length - 1].csatRating = outline.csat;
  conversation.status = outline.handOver ? 'Escalated to a human agent' : outline.now - outline.createdAt < DAY_MS ? 'Open' : 'Closed';
  conversation.hasFeedback = computeHasFeedback(conversation);
  conversation.resolved = computeResolved(conversation);
  return conversation;
}

/** The turns' messages and replies, then the hand-over; returns the replies, one per turn. */
function addEvents(conversation: Conversation, outline: ConversationOutline): StoredEvent[] {
  const { events } = conversation;
  const add = (at: number, role: EventRole, type: EventType, message: string | null) => {
    const event = newEvent(conversation.id, outline.eventId(events.length + 1), outline.createdAt + at, role, type, message);
    events.push(event);
    return event;
  };
  const replies = outline.turns.map((turn) => {
    const user = add(turn.userAt, 'user', 'message', turn.message);
    if (outline.ticket !== null) {
      user.externalId = `zd-msg-${outline.ticket}-${events.length}`;
      user.externalCreatedAt = user.createdAt - 30 * SECOND_MS;
    }
    const reply = add(turn.replyAt, 'svcbot', turn.reply.type, turn.reply.message);
    reply.usedArticles = turn.reply.usedArticles.map((article) => ({ ...article }));
    for (const article of turn.reply.usedArticles) {
      if (!conversation.usedArticles.some((used) => used.id === article.id)) conversation.usedArticles.push({ ...article });
    }
    for (const folder of turn.reply.usedSubfolders) {
      if (!conversation.usedSubfolders.some((used) => used.id === folder.id)) conversation.usedSubfolders.push({ ...folder });
    }
    return reply;
  });
  const opening = events[0];
  opening.tags = outline.tags.map((tag) => ({ ...tag }));
  if (outline.attachment) opening.attachments.push(outline.attachment);
  const { handOver } = outline;
  if (handOver) {
    add(handOver.noteAt, 'agent', 'internalnote', 'Picked up from the escalation queue.');
    add(
      handOver.messageAt,
      'agent',
      'message',
      `Hi ${handOver.greeting}, this is ${handOver.teammate} from the Northwind support team. I have taken over your request and will get back to you shortly.`,
    );
  }
  return replies;
}
