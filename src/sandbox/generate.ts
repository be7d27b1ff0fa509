/**
 * Generated conversations (`--sandbox-conversations N`): N more conversations for workspace A,
 * spread over the last 365 days across its two agents, their sources and channels, with
 * thumbs, CSAT and escalations in the shares CHOICES.md lists.
 *
 * Conversation n (1-based) draws every choice from its own seeded generator, so it is the same
 * whatever N is (10,000 are the first 10,000 of 100,000) and the same N gives the same data.
 * Only what the list route filters and sorts on is kept, in typed columns (about 30 bytes a
 * conversation); the full object with its events is rebuilt from the same draws when a page, a
 * read or a write needs it (`materialise`). Answers are the agent's replies to the same questions
 * at start, kept once per agent and question: later article edits do not rewrite history.
 */
import { buildConversation, type OutlineCustomer } from './conversation-outline.js';
import type { GeneratedColumns } from './conversation-store.js';
import { recordReply, type RecordedReply } from './reply.js';
import { SEED, type SeedIds } from './seed-ids.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS, type Workspace } from './state.js';
import type { Channel, Conversation, TagReference } from './types.js';

const YEAR_DAYS = 365;
/** No follow-up question. */
const NONE = 255;

type Topic = 'shipping' | 'tracking' | 'international' | 'returns' | 'account' | 'warranty' | 'other';
type TagKey = keyof SeedIds['tags'];
type ArticleKey = keyof SeedIds['articles'];

interface Question {
  text: string;
  topic: Topic;
  /** The article a right answer comes from; null when the knowledge base has none. */
  expected: ArticleKey | null;
  tag: TagKey | null;
}

const q = (topic: Topic, expected: ArticleKey | null, tag: TagKey | null, texts: string[]): Question[] => texts.map((text) => ({ text, topic, expected, tag }));

/** Opening questions, by topic. */
const OPENERS: Record<Topic, Question[]> = {
  shipping: [
    ...q('shipping', 'shippingTimes', 'shipping', [
      'How long does standard shipping take?',
      'When will my order ship if I order today?',
      'Is shipping free on orders over $75?',
      'How much does shipping cost to Alaska?',
    ]),
    ...q('shipping', 'expressDelivery', 'shipping', ['Do you offer express delivery?', 'Can I get next-day shipping to Chicago?']),
  ],
  tracking: q('tracking', 'orderTracking', 'shipping', ['Where is my order?', 'How do I track my package?', 'My tracking number is not working.', 'Tracking has not updated for three days.']),
  international: q('international', 'internationalShipping', 'shipping', [
    'Do you ship to Canada?',
    'Who pays customs duties on orders to the UK?',
    'How long does delivery to Germany take?',
    'Do you ship to Australia?',
  ]),
  returns: q('returns', 'returnsPolicy', 'returns', [
    'How do I return an item?',
    'Can I exchange my jacket for a different size?',
    'When will I get my refund?',
    'Can I return something I bought on sale?',
  ]),
  account: q('account', 'passwordReset', 'account', ['I forgot my password.', 'The password reset email never arrived.', 'I cannot log in to my account.']),
  warranty: q('warranty', 'warranty', 'warranty', ['My backpack zipper broke, is it covered by the warranty?', 'How do I file a warranty claim?', 'Do you repair jackets with failed seams?']),
  other: [
    ...q('other', null, 'urgent', ['I was charged twice for my order.', 'I want to speak to a manager.']),
    ...q('other', null, null, ['Can you price match a competitor?', 'Do you have a store in Portland?', 'Do you sell gift cards?', 'Is the Trailblazer tent in stock in green?']),
  ],
};

/** A second question some customers ask, by the topic of the first. */
const FOLLOW_UPS: Record<Topic, Question[]> = {
  shipping: q('tracking', 'orderTracking', null, ['Thanks! And how do I track the package once it ships?']),
  tracking: q('tracking', null, null, ['Can I change the delivery address on my order?']),
  international: q('international', 'internationalShipping', null, ['Who pays the import tax when it arrives?']),
  returns: q('returns', 'returnsPolicy', null, ['How long does the refund take?', 'Can I exchange a size instead of returning it?']),
  account: q('account', 'passwordReset', null, ['I still cannot log in, the password is rejected.']),
  warranty: q('warranty', 'warranty', null, ['Do you also repair tents with a broken pole?']),
  other: q('other', null, null, ['Can I talk to a person, please?']),
};

const TOPICS = Object.keys(OPENERS) as Topic[];
/** Every question once: a conversation stores indices into it. */
const QUESTIONS: Question[] = [...TOPICS.flatMap((t) => OPENERS[t]), ...TOPICS.flatMap((t) => FOLLOW_UPS[t])];
const indexOfQuestion = (question: Question) => QUESTIONS.indexOf(question);

/** [min, max] in ms. */
type Span = [number, number];

/** One generated agent: its share of conversations, and the shares and delays of its own. */
interface AgentProfile {
  bot: keyof SeedIds['bots'];
  channel: Channel;
  share: number;
  sources: Record<string, number>;
  topics: Record<Topic, number>;
  /** reply, follow-up and hand-over delays */
  replyDelay: Span;
  followUpGap: Span;
  handOver: Span;
}

/** Workspace A's agents: the chat Store Assistant takes most conversations, Email Support the rest. */
const AGENTS: AgentProfile[] = [
  {
    bot: 'storeAssistant',
    channel: 'chat',
    share: 0.65,
    sources: { widget: 0.88, api: 0.12 },
    topics: { shipping: 22, tracking: 20, international: 6, returns: 18, account: 10, warranty: 10, other: 14 },
    replyDelay: [3 * SECOND_MS, 8 * SECOND_MS],
    followUpGap: [30 * SECOND_MS, 5 * MINUTE_MS],
    handOver: [2 * MINUTE_MS, 30 * MINUTE_MS],
  },
  {
    bot: 'emailSupport',
    channel: 'email',
    share: 0.35,
    sources: { zendesk: 0.92, api: 0.08 },
    topics: { shipping: 6, tracking: 10, international: 16, returns: 26, account: 14, warranty: 18, other: 10 },
    replyDelay: [20 * SECOND_MS, 3 * MINUTE_MS],
    followUpGap: [2 * HOUR_MS, 20 * HOUR_MS],
    handOver: [1 * HOUR_MS, 8 * HOUR_MS],
  },
];
const SOURCES = [...new Set(AGENTS.flatMap((agent) => Object.keys(agent.sources)))];
const CHANNELS: Channel[] = ['chat', 'email'];

const SHARES = {
  followUp: 0.25,
  /** of conversations whose agent answered with a message */
  rated: 0.3,
  /** of rated answers: thumbs down when the answer came from the expected article, and when it did not */
  downWhenRight: 0.12,
  downWhenWrong: 0.65,
  /** of thumbs down: resolved when younger than 14 days, and when older */
  resolvedRecent: 0.3,
  resolvedOlder: 0.8,
  feedbackNote: 0.6,
  csat: 0.18,
  attachment: 0.3,
  customerKnown: 0.75,
  gold: 0.25,
} as const;
/** CSAT ratings 0..5: weights after a smooth conversation, and after a thumbs down or an escalation. */
const CSAT_HAPPY = [2, 3, 5, 12, 28, 50];
const CSAT_UNHAPPY = [8, 17, 25, 25, 15, 10];

const FEEDBACK_NOTES = [
  'The answer did not address what the customer asked.',
  'Should have handed over to a human sooner.',
  'Too vague: the customer asked for specifics.',
  'Answered from the wrong article.',
  'Correct policy, but it missed the exception that applied.',
  'The customer had already tried this.',
];
const FIRST_NAMES = ['Ava', 'Noah', 'Mia', 'Liam', 'Zoe', 'Ethan', 'Ivy', 'Owen', 'Lena', 'Caleb', 'Nora', 'Felix', 'Ruby', 'Omar', 'Iris', 'Hugo'];
const LAST_NAMES = ['Nguyen', 'Patel', 'Garcia', 'Kim', 'Johnson', 'Rossi', 'Okafor', 'Schmidt', 'Silva', 'Brown', 'Larsen', 'Moreau', 'Haddad', 'Tanaka'];
const TEAM = ['Maya', 'Jonas', 'Priya', 'Sam'];

// ---------------------------------------------------------------------------
// Seeded draws

/** mulberry32: a small, fast 32-bit generator, seeded per conversation. */
function generatorFor(n: number): () => number {
  let h = Math.imul(n ^ 0x5eed5eed, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  let state = (h ^ (h >>> 16)) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Draw = () => number;
const between = (draw: Draw, [min, max]: number[]) => Math.round(min + draw() * (max - min));
const oneOf = <T>(draw: Draw, items: readonly T[]): T => items[Math.floor(draw() * items.length)];
/** One of `keys`, drawn by the weights given for them. */
function pickWeighted<K extends string>(draw: Draw, keys: readonly K[], weights: Record<K, number>): K {
  return keys[
    weighted(
      draw,
      keys.map((key) => weights[key]),
    )
  ];
}

function weighted(draw: Draw, weights: readonly number[]): number {
  let left = draw() * weights.reduce((sum, w) => sum + w, 0);
  for (let index = 0; index < weights.length; index++) {
    left -= weights[index];
    if (left < 0) return index;
  }
  return weights.length - 1;
}

/**
 * Age in days, 0..365, with twice the density today as a year ago (a growing workspace): the
 * inverse of the distribution function of the density 2 - age/365.
 */
function ageInDays(draw: Draw): number {
  const span = YEAR_DAYS * 2;
  return span - Math.sqrt(span * span - 3 * YEAR_DAYS * YEAR_DAYS * draw());
}

// ---------------------------------------------------------------------------
// One conversation's plan: every draw, in a fixed order

interface Reply extends RecordedReply {
  /** answered from the question's expected article */
  right: boolean;
  messageLower: string | null;
}

interface Turn {
  question: number;
  userAt: number;
  replyAt: number;
}

interface Plan {
  agent: number;
  source: number;
  createdAt: number;
  turns: Turn[];
  handOver: { noteAt: number; messageAt: number; teammate: string } | null;
  thumbs: { approved: boolean; resolved: boolean | null; note: string | null } | null;
  csat: number | null;
  attachment: boolean;
  customer: OutlineCustomer | null;
  /** time of the last event */
  latestAt: number;
}

// ---------------------------------------------------------------------------

/** Conversation n's id: the seed's id scheme with variant 9 (seed conversations use 8). */
function generatedConversationId(n: number): string {
  return `c0000000-000a-4000-9000-${String(n).padStart(12, '0')}`;
}
const CONVERSATION_ID = /^c0000000-000a-4000-9000-(\d{12})$/;
const eventId = (n: number, k: number) => `e0000000-000a-4000-9${String(k).padStart(3, '0')}-${String(n).padStart(12, '0')}`;
const EVENT_ID = /^e0000000-000a-4000-9\d{3}-(\d{12})$/;

/**
 * The N generated conversations of workspace A (seeded first: the replies come from its
 * articles): typed columns for the list route, objects on demand.
 */
export class GeneratedConversations implements GeneratedColumns {
  readonly createdAt: Float64Array;
  /** latest event time: the list route's sort key */
  readonly latestAt: Float64Array;
  readonly agent: Uint8Array;
  readonly source: Uint8Array;
  readonly channel: Uint8Array;
  readonly question: Uint8Array;
  /** NONE when there is no follow-up */
  readonly followUp: Uint8Array;
  /** -1 when no rating */
  readonly csat: Int8Array;
  /** per agent, indices sorted newest first by (latestAt, id) */
  readonly byAgent: Uint32Array[];
  readonly agentIds: string[];
  /** Every conversation's last event is at most this long after its creation (the list route's index relies on it). */
  readonly maxSpanMs = 2 * DAY_MS;
  readonly sources = SOURCES;
  readonly channels = CHANNELS;
  /** replies[agent][question], as the agent answered at start */
  private readonly replies: Reply[][];
  private readonly tags = new Map<TagKey, TagReference>();

  constructor(
    private readonly ws: Workspace,
    readonly count: number,
    /** the clock at start: every time is relative to it */
    private readonly now: number,
  ) {
    this.agentIds = AGENTS.map((agent) => SEED.bots[agent.bot]);
    this.replies = AGENTS.map((agent) => QUESTIONS.map((question) => snapshotReply(ws, SEED.bots[agent.bot], question, question.expected && SEED.articles[question.expected])));
    for (const key of Object.keys(SEED.tags) as TagKey[]) {
      const tag = ws.tags.get(SEED.tags[key]);
      if (tag) this.tags.set(key, { id: tag.id, name: tag.tagName, groupId: tag.tagGroupId });
    }
    this.createdAt = new Float64Array(count);
    this.latestAt = new Float64Array(count);
    this.agent = new Uint8Array(count);
    this.source = new Uint8Array(count);
    this.channel = new Uint8Array(count);
    this.question = new Uint8Array(count);
    this.followUp = new Uint8Array(count);
    this.csat = new Int8Array(count);
    const members: number[][] = AGENTS.map(() => []);
    for (let index = 0; index < count; index++) {
      const plan = this.plan(index + 1);
      this.createdAt[index] = plan.createdAt;
      this.latestAt[index] = plan.latestAt;
      this.agent[index] = plan.agent;
      this.source[index] = plan.source;
      this.channel[index] = CHANNELS.indexOf(AGENTS[plan.agent].channel);
      this.question[index] = plan.turns[0].question;
      this.followUp[index] = plan.turns[1]?.question ?? NONE;
      this.csat[index] = plan.csat ?? -1;
      members[plan.agent].push(index);
    }
    this.byAgent = members.map((indices) => Uint32Array.from(indices).sort((a, b) => this.newerFirst(a, b)));
  }

  /** Sort order of the list route: newest latest event first, then the larger id (ids of the same width compare as n). */
  private newerFirst(a: number, b: number): number {
    return this.latestAt[b] - this.latestAt[a] || b - a;
  }

  idOf(index: number): string {
    return generatedConversationId(index + 1);
  }

  /** The index of a generated conversation id, whatever its state in the store. */
  indexOf(id: string): number | undefined {
    const match = CONVERSATION_ID.exec(id);
    const index = match ? Number(match[1]) - 1 : -1;
    return index >= 0 && index < this.count ? index : undefined;
  }

  /** The index of the conversation a generated event id belongs to. */
  indexOfEvent(id: string): number | undefined {
    const match = EVENT_ID.exec(id);
    return match ? this.indexOf(generatedConversationId(Number(match[1]))) : undefined;
  }

  /**
   * A test of the `question` and `answer` filters (lowercased) against the stored question
   * indices: each question's and reply's text is checked once, not once per conversation.
   * Null when no generated conversation can match.
   */
  textFilter(question: string | undefined, answer: string | undefined): ((index: number) => boolean) | null {
    const asked = QUESTIONS.map((item) => question === undefined || item.text.toLowerCase().includes(question));
    const answered = this.replies.map((replies) => replies.map((reply) => answer === undefined || (reply.messageLower?.includes(answer) ?? false)));
    if (!asked.includes(true) || !answered.flat().includes(true)) return null;
    return (index) => {
      const first = this.question[index];
      const second = this.followUp[index];
      if (question !== undefined && !asked[first] && !(second !== NONE && asked[second])) return false;
      const agent = answered[this.agent[index]];
      return answer === undefined || agent[first] || (second !== NONE && agent[second]);
    };
  }

  /** Conversation n's draws, in a fixed order. */
  private plan(n: number): Plan {
    const draw = generatorFor(n);
    const agentIndex = draw() < AGENTS[0].share ? 0 : 1;
    const agent = AGENTS[agentIndex];
    const source = SOURCES.indexOf(pickWeighted(draw, Object.keys(agent.sources), agent.sources));
    const age = ageInDays(draw);
    const topic = pickWeighted(draw, TOPICS, agent.topics);
    const questions = [indexOfQuestion(oneOf(draw, OPENERS[topic]))];
    if (draw() < SHARES.followUp) questions.push(indexOfQuestion(oneOf(draw, FOLLOW_UPS[topic])));

    const replies = this.replies[agentIndex];
    const turns: Turn[] = [];
    let at = SECOND_MS;
    for (const question of questions) {
      if (turns.length) at += between(draw, agent.followUpGap);
      const userAt = at;
      at += between(draw, agent.replyDelay);
      turns.push({ question, userAt, replyAt: at });
    }
    const escalated = questions.some((question) => replies[question].type === 'silent_escalation');
    let handOver: Plan['handOver'] = null;
    if (escalated) {
      const noteAt = at + between(draw, agent.handOver);
      at = noteAt + between(draw, [MINUTE_MS, 10 * MINUTE_MS]);
      handOver = { noteAt, messageAt: at, teammate: oneOf(draw, TEAM) };
    }

    const answered = turns.find((turn) => replies[turn.question].type === 'message');
    let thumbs: Plan['thumbs'] = null;
    if (answered && draw() < SHARES.rated) {
      const right = replies[answered.question].right;
      const approved = draw() >= (right ? SHARES.downWhenRight : SHARES.downWhenWrong);
      thumbs = { approved, resolved: null, note: null };
      if (!approved) {
        thumbs.resolved = draw() < (age < 14 ? SHARES.resolvedRecent : SHARES.resolvedOlder);
        if (draw() < SHARES.feedbackNote) thumbs.note = oneOf(draw, FEEDBACK_NOTES);
      }
    }
    const csat = draw() < SHARES.csat ? weighted(draw, escalated || thumbs?.approved === false ? CSAT_UNHAPPY : CSAT_HAPPY) : null;
    const attachment = topic === 'warranty' && draw() < SHARES.attachment;
    const customer =
      draw() < SHARES.customerKnown
        ? { first: oneOf(draw, FIRST_NAMES), last: oneOf(draw, LAST_NAMES), tier: draw() < SHARES.gold ? ('gold' as const) : ('standard' as const), orders: Math.floor(draw() * 25) }
        : null;
    // Young conversations move back so that their last event is not in the future.
    const createdAt = Math.min(Math.round(this.now - age * DAY_MS), this.now - at - SECOND_MS);
    return { agent: agentIndex, source, createdAt, turns, handOver, thumbs, csat, attachment, customer, latestAt: createdAt + at };
  }

  /** Conversation `index` as a full object (a new one on every call). */
  materialise(index: number): Conversation {
    const n = index + 1;
    const plan = this.plan(n);
    const source = SOURCES[plan.source];
    const replies = this.replies[plan.agent];
    const openingTag = QUESTIONS[plan.turns[0].question].tag;
    const tag = openingTag && this.tags.get(openingTag);
    return buildConversation({
      id: generatedConversationId(n),
      companyId: this.ws.id,
      botId: this.agentIds[plan.agent],
      createdAt: plan.createdAt,
      now: this.now,
      source,
      channel: AGENTS[plan.agent].channel,
      ticket: source === 'zendesk' ? 100_000 + n : null,
      customer: plan.customer,
      locale: 'en-US',
      eventId: (k) => eventId(n, k),
      turns: plan.turns.map((turn) => ({ userAt: turn.userAt, message: QUESTIONS[turn.question].text, replyAt: turn.replyAt, reply: replies[turn.question] })),
      tags: tag ? [tag] : [],
      attachment: plan.attachment
        ? {
            storagePath: `${this.ws.id}/interactions/${generatedConversationId(n)}/photo.jpg`,
            originalUrl: `https://uploads.northwind-outfitters.example/chat/${n.toString(16)}/photo.jpg`,
            contentType: 'image/jpeg',
            sizeBytes: 90_000 + ((n * 7_919) % 150_000),
          }
        : null,
      handOver: plan.handOver && { ...plan.handOver, greeting: plan.customer?.first ?? 'there' },
      thumbs: plan.thumbs && { turn: plan.turns.findIndex((turn) => replies[turn.question].type === 'message'), ...plan.thumbs },
      csat: plan.csat,
    });
  }
}

function snapshotReply(ws: Workspace, botId: string, question: Question, expectedArticleId: string | null): Reply {
  const reply = recordReply(ws, botId, question.text);
  return { ...reply, right: reply.usedArticles[0]?.id === expectedArticleId, messageLower: reply.message?.toLowerCase() ?? null };
}
