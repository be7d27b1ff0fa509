/**
 * Seed data. Workspace A is "Northwind Outfitters", a fictional online outdoor-clothing store;
 * workspace B ("Globex Hardware") is tiny and exists to exercise cross-workspace 403s.
 *
 * Ids are deterministic (see ids.ts) and every time is relative to the clock at start, so the
 * data always looks recent. SEED (seed-ids.ts) lists the ids other code and tests rely on.
 */
import { buildConversation, type OutlineTurn } from './conversation-outline.js';
import { GeneratedConversations } from './generate.js';
import { eventSeedId, seedId } from './ids.js';
import { recordReply } from './reply.js';
import { SEED } from './seed-ids.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS, createWorkspace, iso, newConversation, newEvent, type SandboxState, type Workspace } from './state.js';
import type { AnswerSnapshot, Article, Bot, Conversation, Criterion, FixIteration, FixReviewSession, ProviderCatalog, RuleVersion, TagReference } from './types.js';

const HELP = 'https://help.northwind-outfitters.example/articles';

interface ArticleSeed {
  id: string;
  title: string;
  slug: string;
  folder: string;
  mainKnowledge: string;
  questions: string[];
  keywords: string[];
  agentInstruction?: string;
  active?: boolean;
  escalation?: boolean;
}

const ARTICLES: ArticleSeed[] = [
  {
    id: SEED.articles.shippingTimes,
    title: 'Shipping times and costs',
    slug: 'shipping-times',
    folder: SEED.folders.shipping,
    mainKnowledge:
      'Orders placed before 2 pm Eastern on a business day ship the same day from our warehouse in Columbus, Ohio. ' +
      'Standard shipping takes 3 to 5 business days within the contiguous United States and is free on orders over $75; ' +
      'below that it costs $6.95. Alaska, Hawaii and APO/FPO addresses take 7 to 10 business days. ' +
      'You will receive a confirmation email with a tracking number as soon as the parcel leaves the warehouse.',
    questions: ['How long does shipping take?', 'When will my order ship?', 'How much does shipping cost?', 'Is shipping free?'],
    keywords: ['shipping', 'delivery time', 'free shipping', 'dispatch', 'ship'],
  },
  {
    id: SEED.articles.orderTracking,
    title: 'Tracking your order',
    slug: 'order-tracking',
    folder: SEED.folders.shipping,
    mainKnowledge:
      'Every order gets a tracking number by email once it ships; you can also find it under Orders in your Northwind account. ' +
      'Tracking can take up to 24 hours to update after the label is created, so a status of "Label created" on the first day is normal. ' +
      'If the tracking has not changed for 3 business days, contact us with your order number and we will open a trace with the carrier.',
    questions: ['Where is my order?', 'How do I track my package?', 'My tracking number is not working', 'Tracking has not updated'],
    keywords: ['tracking', 'track', 'tracking number', 'where is my order', 'package', 'parcel', 'carrier'],
  },
  {
    id: SEED.articles.internationalShipping,
    title: 'International shipping',
    slug: 'international-shipping',
    folder: SEED.folders.international,
    mainKnowledge:
      'We ship to Canada, the United Kingdom, the European Union, Australia and Japan. ' +
      'International orders are delivered in 7 to 14 business days with DHL Express, and shipping is a flat $19.95. ' +
      'Customs duties and import taxes are charged by the destination country and paid by the recipient on delivery; ' +
      'for Canada and the UK they are usually 5 to 20 percent of the order value.',
    questions: ['Do you ship internationally?', 'Do you ship to Canada?', 'Who pays customs duties?', 'How long does international delivery take?'],
    keywords: ['international', 'customs', 'duties', 'import tax', 'canada', 'europe', 'uk', 'germany', 'australia', 'dhl'],
  },
  {
    id: SEED.articles.returnsPolicy,
    title: 'Returns and exchanges policy',
    slug: 'returns-policy',
    folder: SEED.folders.accountReturns,
    mainKnowledge:
      'You can return unworn items with the original tags within 30 days of delivery for a full refund to the original payment method. ' +
      'Start a return from Orders in your account and print the prepaid label; a $5.95 label fee is deducted unless you choose an exchange or store credit. ' +
      'Items marked Final Sale, worn footwear and personalised products cannot be returned. ' +
      'Refunds are issued within 5 business days after the return reaches our warehouse.',
    questions: ['How do I return an item?', 'What is your return policy?', 'Can I exchange a size?', 'When will I get my refund?'],
    keywords: ['return', 'returns', 'refund', 'exchange', 'return label', 'final sale'],
    agentInstruction: 'Always mention the 30-day window and the Final Sale exception.',
  },
  {
    id: SEED.articles.passwordReset,
    title: 'Resetting your password',
    slug: 'password-reset',
    folder: SEED.folders.accountReturns,
    mainKnowledge:
      'To reset your password, choose "Forgot password" on the sign-in page and enter the email address on your account; ' +
      'we send a reset link that is valid for 60 minutes. ' +
      'If the email does not arrive within 10 minutes, check your spam folder and make sure you used the address you registered with. ' +
      'Accounts created with Google or Apple sign-in do not have a Northwind password; use the same sign-in button instead.',
    questions: ['How do I reset my password?', 'I forgot my password', 'The password reset email never arrived', 'I cannot log in'],
    keywords: ['password', 'reset', 'login', 'log in', 'sign in', 'account locked'],
  },
  {
    id: SEED.articles.warranty,
    title: 'Lifetime warranty and repairs',
    slug: 'warranty',
    folder: SEED.folders.accountReturns,
    mainKnowledge:
      'Northwind-branded packs, jackets and tents carry a lifetime warranty against defects in materials and workmanship. ' +
      'Broken zippers, failed seams and delaminating fabric are repaired or replaced free of charge; normal wear, accidents and pet damage are not covered. ' +
      'To file a warranty claim, email a photo of the defect and your order number, and we will send a prepaid label within 2 business days.',
    questions: ['Is my backpack covered by warranty?', 'How do I file a warranty claim?', 'My zipper broke', 'Do you repair jackets?'],
    keywords: ['warranty', 'defect', 'repair', 'zipper', 'broken', 'claim', 'guarantee'],
  },
  {
    id: SEED.articles.expressDelivery,
    title: 'Express and next-day delivery',
    slug: 'express-delivery',
    folder: SEED.folders.shipping,
    mainKnowledge:
      'Express shipping delivers in 2 business days for $14.95 and next-day delivery costs $24.95 for orders placed before noon Eastern. ' +
      'Express options are not available for PO boxes, Alaska or Hawaii. ' +
      'Upgrading an order that has already been placed is possible only until it is packed; contact us quickly if you need it.',
    questions: ['Do you offer express delivery?', 'Can I get next-day shipping?', 'How do I upgrade my shipping?'],
    keywords: ['express', 'next-day', 'overnight', 'expedited', 'rush'],
  },
  {
    id: SEED.articles.holidayCutoffs,
    title: 'Holiday shipping cutoffs',
    slug: 'holiday-cutoffs',
    folder: SEED.folders.shipping,
    active: false,
    mainKnowledge: 'Order by December 18 with standard shipping or December 21 with express shipping for delivery before Christmas. ' + 'Gift receipts can be added at checkout.',
    questions: ['When is the last day to order for Christmas?'],
    keywords: ['holiday', 'christmas', 'cutoff', 'gift'],
  },
];

// ---------------------------------------------------------------------------

interface ConversationScript {
  ageDays: number;
  bot: 'chat' | 'email';
  messages: string[]; // user turns; each gets a reply from the retrieval flow
  approved?: boolean | null; // thumbs on the first svcbot event
  feedback?: string;
  resolvedNegative?: boolean; // resolved flag of a negatively rated event
  csat?: number;
  tags?: (keyof typeof SEED.tags)[];
  attachment?: boolean;
  source?: string;
}

const SCRIPTS: ConversationScript[] = [
  // --- last 7 days (the default list window)
  {
    ageDays: 0.08,
    bot: 'chat',
    messages: ['Can I return a jacket I bought on sale? It was marked 40% off.'],
    approved: false,
    feedback: 'Bot never mentioned that sale items marked Final Sale cannot be returned.',
    resolvedNegative: false,
    tags: ['returns'],
  },
  { ageDays: 0.4, bot: 'chat', messages: ['The zipper on my backpack broke after two months. Is that covered by the warranty?'], approved: true, attachment: true, csat: 5, tags: ['warranty'] },
  {
    ageDays: 0.9,
    bot: 'email',
    messages: ['I forgot my password and the reset email never arrives.'],
    approved: false,
    feedback: 'Customer signed up with Google; the answer should have said so first.',
    resolvedNegative: false,
    tags: ['account'],
    source: 'zendesk',
  },
  { ageDays: 1.6, bot: 'chat', messages: ['How long does standard shipping take to Denver?', 'Thanks! And how do I track the package once it ships?'], approved: true, csat: 4, tags: ['shipping'] },
  { ageDays: 2.2, bot: 'chat', messages: ['I want to speak to a manager about a billing dispute.'], tags: ['urgent'] },
  {
    ageDays: 3.1,
    bot: 'email',
    messages: ['Do you ship to Canada? How much are customs duties?'],
    approved: false,
    feedback: 'Duties estimate was too vague.',
    resolvedNegative: true,
    source: 'zendesk',
  },
  {
    ageDays: 4.3,
    bot: 'chat',
    messages: ['Where is my order? The tracking number says label created for three days.'],
    approved: false,
    feedback: 'Should have offered to open a carrier trace.',
    resolvedNegative: false,
    csat: 2,
    tags: ['shipping'],
  },
  { ageDays: 5.0, bot: 'chat', messages: ['Do you offer express delivery for Saturday?'], approved: null },
  { ageDays: 5.8, bot: 'email', messages: ['How do I file a warranty claim for a tent with a failed seam?'], approved: true, source: 'zendesk', tags: ['warranty'] },
  { ageDays: 6.5, bot: 'chat', messages: ['Is the Trailblazer tent in stock in green?'], csat: 0 },
  // --- older
  { ageDays: 8, bot: 'chat', messages: ['How much does shipping cost for a $50 order?'], approved: true },
  { ageDays: 10, bot: 'email', messages: ['What is your returns policy for worn shoes?'], approved: true, source: 'zendesk', tags: ['returns'] },
  { ageDays: 13, bot: 'chat', messages: ['I was charged twice for order 58213.'], tags: ['urgent'] },
  { ageDays: 15, bot: 'chat', messages: ['How do I reset my password?', 'Got it, and can I exchange a size instead of returning?'], approved: true, csat: 5 },
  {
    ageDays: 18,
    bot: 'email',
    messages: ['Can I get delivery to Germany before the end of the month?'],
    approved: false,
    feedback: 'Mentioned DHL but not the flat fee.',
    resolvedNegative: true,
    source: 'zendesk',
  },
  { ageDays: 21, bot: 'chat', messages: ['When will my order ship if I order tonight?'], approved: null },
  { ageDays: 25, bot: 'chat', messages: ['Can you price match a competitor coupon?'] },
  { ageDays: 28, bot: 'email', messages: ['How long until I get my refund after returning boots?'], approved: true, source: 'zendesk', csat: 4 },
  { ageDays: 32, bot: 'chat', messages: ['My tracking has not updated in four days.'], approved: false, feedback: 'Tracking answer was fine but customer wanted a refund.', resolvedNegative: true },
  { ageDays: 35, bot: 'chat', messages: ['Is free shipping available on orders over $75?'], approved: true, source: 'api' },
  { ageDays: 40, bot: 'email', messages: ['My jacket zipper broke, do you repair jackets?'], approved: true, source: 'zendesk', tags: ['warranty'] },
  { ageDays: 44, bot: 'chat', messages: ['Do you ship to Australia and who pays import tax?'], approved: null },
  { ageDays: 48, bot: 'chat', messages: ['Can I change the delivery address on my order?'] },
  {
    ageDays: 52,
    bot: 'email',
    messages: ['I cannot log in to my account, the password is rejected.'],
    approved: false,
    feedback: 'Bot did not suggest checking Apple sign-in.',
    resolvedNegative: false,
    source: 'zendesk',
    tags: ['account'],
  },
  { ageDays: 57, bot: 'chat', messages: ['How do I start a return for a fleece?'], approved: true, tags: ['returns'] },
  { ageDays: 61, bot: 'chat', messages: ['Can I get next-day shipping to Chicago?'], approved: true, csat: 3 },
  { ageDays: 66, bot: 'email', messages: ['Who pays customs duties for orders to the UK?'], approved: true, source: 'zendesk' },
  { ageDays: 70, bot: 'chat', messages: ['Do you have a store in Portland?'] },
  { ageDays: 75, bot: 'chat', messages: ['How long does shipping take to Hawaii?'], approved: true },
  { ageDays: 80, bot: 'email', messages: ['Can I exchange my hiking boots for a larger size?'], approved: true, source: 'zendesk' },
  { ageDays: 85, bot: 'chat', messages: ['Where is my package? It shows delivered but I never got it.'], approved: false, feedback: 'Needs a lost-package flow.', resolvedNegative: true },
  { ageDays: 89, bot: 'chat', messages: ['Is my backpack covered by the lifetime warranty if my dog chewed it?'], approved: true },
  // --- beyond 90 days (only reachable with an explicit older window)
  { ageDays: 93, bot: 'email', messages: ['The password reset link expired before I could use it.'], approved: true, source: 'zendesk' },
  { ageDays: 97, bot: 'chat', messages: ['How much is express shipping?'], approved: null },
  { ageDays: 101, bot: 'chat', messages: ['Do you sell gift cards?'] },
  { ageDays: 105, bot: 'email', messages: ['What is the return window for unworn items with tags?'], approved: true, source: 'zendesk' },
  { ageDays: 109, bot: 'chat', messages: ['How do I track my order?'], approved: true, csat: 5 },
  { ageDays: 113, bot: 'chat', messages: ['Do you ship internationally to Japan?'], approved: false, feedback: 'Outdated: we paused Japan shipping.', resolvedNegative: true },
  { ageDays: 117, bot: 'email', messages: ['My tent pole snapped, is it covered by warranty?'], approved: true, source: 'zendesk' },
  { ageDays: 119, bot: 'chat', messages: ['Can I return an item bought 20 days ago?'], approved: true, source: 'api' },
];

const FIRST_NAMES = ['Ava', 'Noah', 'Mia', 'Liam', 'Zoe', 'Ethan', 'Ivy', 'Owen', 'Lena', 'Caleb'];
const LAST_NAMES = ['Nguyen', 'Patel', 'Garcia', 'Kim', 'Johnson', 'Rossi', 'Okafor', 'Schmidt', 'Silva', 'Brown'];

// ---------------------------------------------------------------------------

function tagRef(ws: Workspace, key: keyof typeof SEED.tags): TagReference {
  const t = ws.tags.get(SEED.tags[key]);
  if (!t) throw new Error(`seed: unknown tag ${key}`);
  return { id: t.id, name: t.tagName, groupId: t.tagGroupId };
}

/** A script's pace: the agent replies 4 s after each message, the next message comes 2 minutes after the reply. */
const TURN_MS = 4 * SECOND_MS + 2 * MINUTE_MS;

/** A script's conversation; the replies come from the agent's own reply flow over the seeded articles. */
function scriptedConversation(ws: Workspace, script: ConversationScript, idx: number, now: number): Conversation {
  const n = idx + 1;
  const botId = script.bot === 'chat' ? SEED.bots.storeAssistant : SEED.bots.emailSupport;
  const source = script.source ?? (script.bot === 'chat' ? 'widget' : 'zendesk');
  const first = FIRST_NAMES[idx % FIRST_NAMES.length];
  const last = LAST_NAMES[(idx * 3) % LAST_NAMES.length];
  const turns: OutlineTurn[] = script.messages.map((message, i) => {
    const userAt = SECOND_MS + i * TURN_MS;
    return { userAt, message, replyAt: userAt + 4 * SECOND_MS, reply: recordReply(ws, botId, message) };
  });
  const escalated = turns.some((turn) => turn.reply.type === 'silent_escalation');
  const afterLastTurn = SECOND_MS + turns.length * TURN_MS;
  const conversationId = seedId('conversation', 'a', n);
  return buildConversation({
    id: conversationId,
    companyId: ws.id,
    botId,
    createdAt: Math.round(now - script.ageDays * DAY_MS),
    now,
    source,
    channel: script.bot,
    ticket: source === 'zendesk' ? 40_100 + n * 7 : null,
    customer: idx % 4 === 3 ? null : { first, last, tier: idx % 3 === 0 ? 'gold' : 'standard', orders: (idx * 5) % 17 },
    locale: 'en-US',
    eventId: (k) => eventSeedId('a', n, k),
    turns,
    tags: (script.tags ?? []).map((key) => tagRef(ws, key)),
    attachment: script.attachment
      ? {
          storagePath: `${ws.id}/interactions/${conversationId}/zipper-photo.jpg`,
          originalUrl: 'https://uploads.northwind-outfitters.example/chat/8f2c1e/zipper-photo.jpg',
          contentType: 'image/jpeg',
          sizeBytes: 184_233,
        }
      : null,
    handOver: escalated ? { noteAt: afterLastTurn + 5 * MINUTE_MS, messageAt: afterLastTurn + 6 * MINUTE_MS, teammate: 'Maya', greeting: first } : null,
    thumbs:
      script.approved === undefined ? null : { turn: 0, approved: script.approved, resolved: script.approved === false ? (script.resolvedNegative ?? false) : null, note: script.feedback ?? null },
    csat: script.csat ?? null,
  });
}

/** A helpdesk-synced conversation the service never acted on: excluded from the list route. */
function untouchedConversation(ws: Workspace, now: number): Conversation {
  const n = 41;
  const createdAt = now - 3 * DAY_MS;
  const conv = newConversation({
    id: seedId('conversation', 'a', n),
    createdAt,
    externalCreatedAt: createdAt - MINUTE_MS,
    source: 'zendesk',
    channel: 'email',
    status: 'Closed',
    externalId: '40999',
    url: 'https://northwind.helpdesk.example/tickets/40999',
    subjectPreview: 'Wholesale inquiry for a hiking club',
    companyId: ws.id,
    botId: SEED.bots.emailSupport,
    touchedByService: false,
  });
  conv.events.push(
    newEvent(conv.id, eventSeedId('a', n, 1), createdAt + 1_000, 'user', 'message', 'Do you offer wholesale pricing for a hiking club of 40 members?'),
    newEvent(conv.id, eventSeedId('a', n, 2), createdAt + HOUR_MS, 'agent', 'message', 'Hi! I have forwarded your request to our partnerships team.'),
  );
  return conv;
}

function seedConversations(ws: Workspace, now: number): void {
  for (const conv of [...SCRIPTS.map((script, idx) => scriptedConversation(ws, script, idx, now)), untouchedConversation(ws, now)]) {
    ws.conversations.set(conv.id, conv);
  }
}

// ---------------------------------------------------------------------------

/** Times in the seed are days before the clock at start. */
type DaysAgo = (days: number) => string;
const daysAgoFrom =
  (now: number): DaysAgo =>
  (days) =>
    iso(now - days * DAY_MS);

/** Agents, their folders, and which agent sees which folder. */
function seedAgents(ws: Workspace, t: DaysAgo): void {
  const bots: Bot[] = [
    { id: SEED.bots.storeAssistant, companyId: ws.id, name: 'Store Assistant', description: 'Answers shoppers in the website chat widget.', channels: ['chat'], createdAt: t(400), isActive: true },
    {
      id: SEED.bots.emailSupport,
      companyId: ws.id,
      name: 'Email Support',
      description: 'Drafts and sends replies to support emails from the helpdesk.',
      channels: ['email'],
      createdAt: t(380),
      isActive: true,
    },
  ];
  for (const b of bots) ws.bots.set(b.id, b);

  // Folders and junctions
  ws.folders.set(SEED.folders.shipping, { id: SEED.folders.shipping, companyId: ws.id, name: 'Shipping & Delivery', parentFolderId: null, createdAt: t(300), updatedAt: t(20) });
  ws.folders.set(SEED.folders.international, {
    id: SEED.folders.international,
    companyId: ws.id,
    name: 'International Shipping',
    parentFolderId: SEED.folders.shipping,
    createdAt: t(250),
    updatedAt: t(30),
  });
  ws.folders.set(SEED.folders.accountReturns, { id: SEED.folders.accountReturns, companyId: ws.id, name: 'Account & Returns', parentFolderId: null, createdAt: t(300), updatedAt: t(10) });
  const junctions: [string, string][] = [
    [SEED.bots.storeAssistant, SEED.folders.shipping],
    [SEED.bots.storeAssistant, SEED.folders.accountReturns],
    [SEED.bots.emailSupport, SEED.folders.accountReturns],
    [SEED.bots.emailSupport, SEED.folders.international],
  ];
  junctions.forEach(([botId, folderId], i) => {
    const id = seedId('junction', 'a', i + 1);
    ws.botFolderJunctions.set(id, { id, companyId: ws.id, botId, folderId, createdAt: t(200 - i) });
  });
}

/** Tag groups and tags (before conversations, which reference tags). */
function seedTags(ws: Workspace, t: DaysAgo): void {
  ws.tagGroups.set(SEED.tagGroups.topics, { id: SEED.tagGroups.topics, companyId: ws.id, name: 'Topics', description: 'Conversation topics used in reporting', custom: true, createdAt: t(200) });
  ws.tagGroups.set(SEED.tagGroups.system, { id: SEED.tagGroups.system, companyId: ws.id, name: 'System', description: 'Built-in tags', custom: false, createdAt: t(400) });
  const tagDefs: [keyof typeof SEED.tags, string, string][] = [
    ['shipping', SEED.tagGroups.topics, 'Shipping and delivery questions'],
    ['returns', SEED.tagGroups.topics, 'Returns, exchanges and refunds'],
    ['account', SEED.tagGroups.topics, 'Login and account access'],
    ['warranty', SEED.tagGroups.topics, 'Warranty claims and repairs'],
    ['urgent', SEED.tagGroups.system, 'Needs a human quickly'],
  ];
  tagDefs.forEach(([key, groupId, description], i) => {
    ws.tags.set(SEED.tags[key], { id: SEED.tags[key], createdAt: t(190 - i), tagGroupId: groupId, tagName: key, tagDescription: description });
  });
}

/** The live articles (ARTICLES); one was generated from the completed web source. */
function seedArticles(ws: Workspace, t: DaysAgo): void {
  ARTICLES.forEach((a, i) => {
    const article: Article = {
      id: a.id,
      title: a.title,
      mainKnowledge: a.mainKnowledge,
      agentInstruction: a.agentInstruction ?? '',
      questions: a.questions,
      keywords: a.keywords,
      escalation: a.escalation ?? false,
      misc: {},
      active: a.active ?? true,
      public: true,
      parentFolderId: a.folder,
      companyId: ws.id,
      createdAt: t(280 - i * 10),
      updatedAt: t(40 - i * 3),
      version: 1 + (i % 3),
      isDraft: false,
      isDraftPublished: false,
      originalArticleId: null,
      originalArticleVersion: null,
      createdBy: SEED.users.luis,
      updatedBy: i % 2 ? SEED.users.dana : SEED.users.luis,
      origin: i < 5 ? 'UI_CREATED' : 'API_CREATED',
      documentUrl: `${HELP}/${a.slug}`,
    };
    ws.articles.set(article.id, article);
  });
  // misc linkage of the article generated from the completed web source
  ws.articles.get(SEED.articles.shippingTimes)!.misc = { sourceDocumentId: SEED.sources.webCompleted };
}

/** A draft of the returns policy (45-day window), and a new draft without an original. */
function seedDrafts(ws: Workspace, t: DaysAgo): void {
  const returns = ws.articles.get(SEED.articles.returnsPolicy)!;
  ws.articles.set(SEED.articles.returnsPolicyDraft, {
    ...returns,
    id: SEED.articles.returnsPolicyDraft,
    mainKnowledge: returns.mainKnowledge.replace('within 30 days', 'within 45 days'),
    agentInstruction: 'Always mention the 45-day window and the Final Sale exception.',
    questions: [...returns.questions],
    keywords: [...returns.keywords],
    misc: { note: 'Extended return window for the spring campaign' },
    createdAt: t(2),
    updatedAt: t(1),
    version: 1,
    isDraft: true,
    originalArticleId: returns.id,
    originalArticleVersion: returns.version,
    createdBy: SEED.users.dana,
    updatedBy: SEED.users.dana,
    origin: 'UI_CREATED',
    documentUrl: null,
  });
  ws.articles.set(SEED.articles.giftCardsDraft, {
    id: SEED.articles.giftCardsDraft,
    title: 'Gift cards',
    mainKnowledge:
      'Northwind e-gift cards are available from $25 to $500 and are delivered by email within an hour of purchase. ' + 'Gift cards never expire and can be combined with one promo code per order.',
    agentInstruction: '',
    questions: ['Do you sell gift cards?', 'Do gift cards expire?'],
    keywords: ['gift card', 'gift certificate', 'voucher'],
    escalation: false,
    misc: {},
    active: true,
    public: false,
    parentFolderId: SEED.folders.accountReturns,
    companyId: ws.id,
    createdAt: t(3),
    updatedAt: t(3),
    version: 1,
    isDraft: true,
    isDraftPublished: false,
    originalArticleId: null,
    originalArticleVersion: null,
    createdBy: SEED.users.luis,
    updatedBy: SEED.users.luis,
    origin: 'API_CREATED',
    documentUrl: null,
  });
}

/** Sources, their ingestion jobs, the connected providers and what they offer to import. */
function seedSources(ws: Workspace, now: number, t: DaysAgo): void {
  ws.connectedProviders = new Set(['notes', 'helpcenter', 'wiki']);
  ws.sources.set(SEED.sources.webCompleted, {
    id: SEED.sources.webCompleted,
    companyId: ws.id,
    source: 'web',
    url: 'https://northwind-outfitters.example/help/shipping',
    title: 'Shipping information | Northwind Outfitters',
    success: true,
    changed: false,
    linkedJobStatus: 'COMPLETED',
    linkedKnowledgeId: SEED.articles.shippingTimes,
    error: '',
    paragraphs: [
      'Orders placed before 2 pm Eastern ship the same day.',
      'Standard shipping takes 3 to 5 business days and is free on orders over $75.',
      'Express shipping delivers in 2 business days.',
    ],
    createdAt: t(60),
    updatedAt: t(60),
    linkedJobId: SEED.jobs.webCompleted,
    externalId: null,
    mimeType: 'text/html',
    object: null,
    storageUrl: null,
  });
  ws.sources.set(SEED.sources.webFailed, {
    id: SEED.sources.webFailed,
    companyId: ws.id,
    source: 'web',
    url: 'https://partners.northwind-outfitters.example/wholesale-terms',
    title: 'Wholesale terms',
    success: false,
    changed: false,
    linkedJobStatus: 'FAILED',
    linkedKnowledgeId: null,
    error: 'Fetching the URL failed: HTTP 401 (the page requires authentication)',
    paragraphs: [],
    createdAt: t(12),
    updatedAt: t(12),
    linkedJobId: SEED.jobs.webFailed,
    externalId: null,
    mimeType: null,
    object: null,
    storageUrl: null,
  });
  ws.sources.set(SEED.sources.notesPage, {
    id: SEED.sources.notesPage,
    companyId: ws.id,
    source: 'notes',
    url: 'https://notes.example/northwind/returns-playbook-5d1c',
    title: 'Returns playbook',
    success: true,
    changed: false,
    linkedJobStatus: 'COMPLETED',
    linkedKnowledgeId: SEED.articles.returnsPolicy,
    error: '',
    paragraphs: ['Returns are accepted within 30 days of delivery.', 'Final Sale items cannot be returned.'],
    createdAt: t(45),
    updatedAt: t(44),
    linkedJobId: SEED.jobs.notesPage,
    externalId: 'notes-page-5d1c',
    mimeType: 'text/markdown',
    object: 'page',
    storageUrl: null,
  });
  const jobRows: [string, string, 'COMPLETED' | 'FAILED', number, string, string[]][] = [
    [SEED.jobs.webCompleted, SEED.sources.webCompleted, 'COMPLETED', 60, '', ws.sources.get(SEED.sources.webCompleted)!.paragraphs],
    [SEED.jobs.webFailed, SEED.sources.webFailed, 'FAILED', 12, ws.sources.get(SEED.sources.webFailed)!.error, []],
    [SEED.jobs.notesPage, SEED.sources.notesPage, 'COMPLETED', 45, '', ws.sources.get(SEED.sources.notesPage)!.paragraphs],
  ];
  for (const [id, documentId, outcome, daysAgo, failureError, paragraphs] of jobRows) {
    ws.jobs.set(id, { id, documentId, status: outcome, companyId: ws.id, queuedAt: now - daysAgo * DAY_MS, outcome, failureError, resultParagraphs: [...paragraphs], english: true, baser: false });
  }
  ws.providerCatalog = providerCatalog();
}

/** What the connected providers offer to register: notes pages, a help-center tree, a wiki space. */
function providerCatalog(): ProviderCatalog {
  return {
    notes: [
      { externalId: 'notes-page-5d1c', title: 'Returns playbook', originalUrl: 'https://notes.example/northwind/returns-playbook-5d1c', mimeType: 'text/markdown', iconLink: null, object: 'page' },
      {
        externalId: 'notes-page-8a3f',
        title: 'Sizing guide for jackets',
        originalUrl: 'https://notes.example/northwind/sizing-guide-8a3f',
        mimeType: 'text/markdown',
        iconLink: 'https://notes.example/icons/ruler.png',
        object: 'page',
      },
      { externalId: 'notes-db-22b7', title: 'Product care database', originalUrl: 'https://notes.example/northwind/product-care-22b7', mimeType: 'text/markdown', iconLink: null, object: 'database' },
    ],
    helpcenter: [
      {
        externalId: 'hc-cat-100',
        title: 'Orders',
        type: 'category',
        children: [
          {
            externalId: 'hc-sec-110',
            title: 'Payments',
            type: 'section',
            children: [
              { externalId: 'hc-art-111', title: 'Accepted payment methods', originalUrl: 'https://northwind.helpcenter.example/articles/111', type: 'article' },
              { externalId: 'hc-art-112', title: 'Paying with Afterpay', originalUrl: 'https://northwind.helpcenter.example/articles/112', type: 'article' },
            ],
          },
          {
            externalId: 'hc-sec-120',
            title: 'Changing an order',
            type: 'section',
            children: [{ externalId: 'hc-art-121', title: 'Changing the delivery address', originalUrl: 'https://northwind.helpcenter.example/articles/121', type: 'article' }],
          },
        ],
      },
    ],
    wiki: [
      {
        key: 'SUP',
        title: 'Support team',
        originalUrl: 'https://wiki.example/spaces/SUP',
        pages: [
          { externalId: 'wiki-9001', title: 'Escalation matrix', originalUrl: 'https://wiki.example/spaces/SUP/pages/9001' },
          { externalId: 'wiki-9002', title: 'Lost package procedure', originalUrl: 'https://wiki.example/spaces/SUP/pages/9002' },
        ],
      },
    ],
  };
}

/** Actions and the attribute. */
function seedActions(ws: Workspace, t: DaysAgo): void {
  ws.tools.set(SEED.tools.orderStatus, {
    id: SEED.tools.orderStatus,
    createdAt: t(90),
    updatedAt: t(20),
    companyId: ws.id,
    name: 'Look up order status',
    description: 'Fetches the fulfilment status and tracking number of an order.',
    alwaysGet: false,
    source: 'api',
    inputSchema: [{ name: 'orderId', type: 'string', required: true, source: 'metadata', path: 'order_id' }],
    outputSchema: [
      { name: 'status', type: 'string', path: `${SEED.dataSteps.orderStatusLookup}.status`, sendToLlm: true, source: 'apiResponse', useInRulebooks: true },
      { name: 'trackingNumber', type: 'string', path: `${SEED.dataSteps.orderStatusLookup}.trackingNumber`, sendToLlm: true, source: 'apiResponse', useInRulebooks: true },
      { name: 'estimatedDelivery', type: 'date', path: `${SEED.dataSteps.orderStatusLookup}.estimatedDelivery`, sendToLlm: true, source: 'apiResponse', useInRulebooks: false },
    ],
    builtInHandler: null,
  });
  ws.tools.set(SEED.tools.returnLabel, {
    id: SEED.tools.returnLabel,
    createdAt: t(70),
    updatedAt: t(70),
    companyId: ws.id,
    name: 'Create return label',
    description: 'Creates a prepaid return label for an order.',
    alwaysGet: false,
    source: 'ui',
    inputSchema: [
      { name: 'orderId', type: 'string', required: true, source: 'metadata', path: 'order_id' },
      { name: 'reason', type: 'string', required: false, defaultValue: 'other' },
    ],
    outputSchema: [{ name: 'labelUrl', type: 'string', path: `${SEED.dataSteps.returnLabelCreate}.labelUrl`, sendToLlm: true, source: 'apiResponse', useInRulebooks: true }],
    builtInHandler: null,
  });
  ws.tools.set(SEED.tools.customerTier, {
    id: SEED.tools.customerTier,
    createdAt: t(50),
    updatedAt: t(5),
    companyId: ws.id,
    name: 'Customer tier',
    description: 'Loyalty tier and lifetime order count of the customer, fetched at the start of each conversation.',
    alwaysGet: true,
    source: 'api',
    inputSchema: [{ name: 'email', type: 'string', required: true, source: 'jwt', path: 'email' }],
    outputSchema: [
      { name: 'tier', type: 'string', path: `${SEED.dataSteps.customerTierLookup}.tier`, sendToLlm: true, source: 'apiResponse', useInRulebooks: true },
      { name: 'lifetimeOrders', type: 'number', path: `${SEED.dataSteps.customerTierLookup}.lifetimeOrders`, sendToLlm: false, source: 'apiResponse', useInRulebooks: true },
    ],
    builtInHandler: null,
  });
}

/** The actions' data steps, calling the mock store backend, and which agents each action serves. */
function seedDataSteps(ws: Workspace, t: DaysAgo, baseUrl: string): void {
  ws.dataSteps.set(SEED.dataSteps.orderStatusLookup, {
    id: SEED.dataSteps.orderStatusLookup,
    createdAt: t(90),
    updatedAt: t(20),
    companyId: ws.id,
    name: 'Get order',
    toolId: SEED.tools.orderStatus,
    stepNumber: 1,
    url: `${baseUrl}/__sandbox/mock/orders/\${orderId}`,
    method: 'GET',
    headers: { Authorization: { hide: true, value: 'Bearer nw_live_4b1d9e0c7a2f' }, Accept: { hide: false, value: 'application/json' } },
    body: null,
    responseMapping: { status: 'status', trackingNumber: 'trackingNumber', estimatedDelivery: { path: 'estimatedDelivery', dataType: 'date' } },
  });
  ws.dataSteps.set(SEED.dataSteps.returnLabelCreate, {
    id: SEED.dataSteps.returnLabelCreate,
    createdAt: t(70),
    updatedAt: t(70),
    companyId: ws.id,
    name: 'Create label',
    toolId: SEED.tools.returnLabel,
    stepNumber: 1,
    url: `${baseUrl}/__sandbox/mock/returns`,
    method: 'POST',
    headers: { 'X-Api-Token': { hide: true, value: 'rt_9c2e51aa0b' } },
    body: { orderId: { hide: false, value: '${orderId}' }, reason: { hide: false, value: '${reason}' } },
    responseMapping: { labelUrl: 'labelUrl' },
  });
  ws.dataSteps.set(SEED.dataSteps.customerTierLookup, {
    id: SEED.dataSteps.customerTierLookup,
    createdAt: t(50),
    updatedAt: t(5),
    companyId: ws.id,
    name: 'Get customer',
    toolId: SEED.tools.customerTier,
    stepNumber: 1,
    url: `${baseUrl}/__sandbox/mock/customers/\${email}`,
    method: 'GET',
    headers: { Authorization: { hide: true, value: 'Bearer crm_sk_77f0e2' } },
    body: null,
    responseMapping: { tier: 'tier', lifetimeOrders: { path: 'lifetimeOrders', dataType: 'number' } },
  });
  const assignments: [string, string, string[]][] = [
    [SEED.bots.storeAssistant, SEED.tools.customerTier, ['chat']],
    [SEED.bots.emailSupport, SEED.tools.customerTier, ['email']],
    [SEED.bots.storeAssistant, SEED.tools.orderStatus, ['chat']],
  ];
  assignments.forEach(([botId, toolId, channels], i) => {
    const id = seedId('toolAssignment', 'a', i + 1);
    ws.toolAssignments.set(id, { id, botId, toolId, companyId: ws.id, channels, createdAt: t(40 - i) });
  });
}

/** An intent rule with three versions, and a business rule. */
function seedRules(ws: Workspace, t: DaysAgo): void {
  const ruleId = SEED.rules.whereIsMyOrder;
  const mkVersion = (v: number, status: 'PUBLISHED' | 'DRAFT' | 'HISTORICAL', daysAgo: number, message: string, by: string): RuleVersion => ({
    versionId: `v${v}`,
    version: v,
    createdAt: t(daysAgo),
    createdBy: by,
    item: {
      id: ruleId,
      name: 'Where is my order',
      description: 'Customer asks about the status or location of an order.',
      status,
      source: 'ui',
      triggerType: 'intent',
      botIds: [SEED.bots.storeAssistant, SEED.bots.emailSupport],
      flowConfig: { type: 'message', message },
      version: v,
      versionId: `v${v}`,
      createdAt: t(daysAgo),
      updatedAt: t(daysAgo),
    },
  });
  ws.rules.set(ruleId, {
    id: ruleId,
    companyId: ws.id,
    name: 'Where is my order',
    kind: 'intent',
    activeVersionId: 'v2',
    versions: [
      mkVersion(1, 'HISTORICAL', 120, 'Ask for the order number, then share the tracking link.', SEED.users.dana),
      mkVersion(2, 'PUBLISHED', 45, 'Ask for the order number, run "Look up order status" and share the status and tracking number.', SEED.users.dana),
      mkVersion(3, 'DRAFT', 2, 'Run "Look up order status"; if tracking has not moved for 3 business days, offer a carrier trace.', SEED.users.luis),
    ],
  });
  ws.rules.set(SEED.rules.refundApproval, {
    id: SEED.rules.refundApproval,
    companyId: ws.id,
    name: 'Refunds over $500 need approval',
    kind: 'business',
    activeVersionId: 'v1',
    versions: [
      {
        versionId: 'v1',
        version: 1,
        createdAt: t(100),
        createdBy: SEED.users.dana,
        item: {
          id: SEED.rules.refundApproval,
          name: 'Refunds over $500 need approval',
          description: 'Escalate refund requests above $500 to a human.',
          status: 'PUBLISHED',
          source: 'ui',
          triggerType: null,
          botIds: [SEED.bots.storeAssistant],
          flowConfig: { type: 'escalate', message: 'A teammate will review this refund.' },
          version: 1,
          versionId: 'v1',
          createdAt: t(100),
          updatedAt: t(100),
        },
      },
    ],
  });
}

/** The review of the negatively rated conversation: its replay and a refine session on the answer. */
function seedReview(ws: Workspace, now: number): void {
  ws.replays.set(SEED.replay, {
    id: SEED.replay,
    companyId: ws.id,
    botId: SEED.bots.storeAssistant,
    source: 'replay',
    channel: 'chat',
    status: 'done',
    createdAt: iso(now - HOUR_MS),
    updatedAt: iso(now - HOUR_MS + 20_000),
    parentInteractionId: SEED.negativeConversation,
    replay: { target_event_id: SEED.negativeEvent, status: 'done', ml_models: { answer: 'svc-answer-2025-06', retrieval: 'svc-embed-3' } },
  });

  // Refine session on the negatively rated answer
  const negConv = ws.conversations.get(SEED.negativeConversation)!;
  const negEvent = negConv.events.find((e) => e.id === SEED.negativeEvent)!;
  const sessionId = SEED.refineSession;
  const started = now - 50 * MINUTE_MS;
  const oldSnapshot = { interactionId: negConv.id, eventId: negEvent.id, originalEventId: null, content: negEvent.message, role: 'svcbot', type: negEvent.type, createdAt: iso(negEvent.createdAt) };
  const iteration = refineIteration(ws, started, oldSnapshot);
  const session: FixReviewSession = {
    id: sessionId,
    companyId: ws.id,
    interactionId: negConv.id,
    targetEventId: negEvent.id,
    targetUserEventId: SEED.negativeUserEvent,
    status: 'active',
    publishedIterationId: null,
    publishedAt: null,
    closedAt: null,
    closedReason: null,
    createdAt: iso(started),
    updatedAt: iso(started + 90_000),
    originalAnswerSnapshot: oldSnapshot,
    iterations: [iteration],
  };
  ws.refineSessions.set(sessionId, session);
}

/** The refine session's one iteration: its root cause, the draft it proposes and the replayed answer. */
function refineIteration(ws: Workspace, started: number, oldSnapshot: AnswerSnapshot): FixIteration {
  const iterationId = seedId('refineIteration', 'a', 1);
  const sessionId = SEED.refineSession;
  const { interactionId, eventId } = oldSnapshot;
  return {
    id: iterationId,
    companyId: ws.id,
    sessionId,
    interactionId,
    targetEventId: eventId,
    previousIterationId: null,
    backgroundJobId: 'bg_refine_0001',
    replayInteractionId: SEED.replay,
    replayEventId: seedId('event', 'a', 9001),
    iterationNumber: 1,
    status: 'ready',
    feedbackNote: 'Mention that Final Sale items cannot be returned.',
    summary: 'The returns article lacked a clear Final Sale rule near the top; the draft moves it into the first sentence.',
    confidence: 'high',
    error: null,
    publishedAt: null,
    startedAt: iso(started),
    completedAt: iso(started + 90_000),
    createdAt: iso(started),
    updatedAt: iso(started + 90_000),
    oldAnswerSnapshot: oldSnapshot,
    newAnswerSnapshot: {
      interactionId: SEED.replay,
      eventId: seedId('event', 'a', 9001),
      originalEventId: eventId,
      content: 'Items marked Final Sale, including most discounted items, cannot be returned. Other unworn items with tags can be returned within 30 days.',
      role: 'svcbot',
      type: 'message',
      createdAt: iso(started + 80_000),
    },
    changes: [
      {
        id: seedId('refineChange', 'a', 1),
        companyId: ws.id,
        sessionId,
        iterationId,
        interactionId,
        targetEventId: eventId,
        rootCause: {
          failureStage: 'knowledge_content',
          failureMode: 'incorrect_knowledge',
          reasoning: 'The article mentions Final Sale only in its third sentence, so the answer summarised the general 30-day policy.',
          target: { kind: 'kb_article', operation: 'update', articleId: SEED.articles.returnsPolicy },
        },
        changeType: 'update_article',
        draftPromptVersionId: null,
        draftArticleId: SEED.articles.returnsPolicyDraft,
        draftRuleVersionId: null,
        createdAt: iso(started + 60_000),
      },
    ],
  };
}

/** Criteria, test cases, a test set and prompt versions. */
function seedTestSuite(ws: Workspace, t: DaysAgo): void {
  const crit = (n: number, name: string, c: Partial<Criterion>): Criterion => ({
    id: seedId('criterion', 'a', n),
    companyId: ws.id,
    defaultCriterionId: null,
    name,
    type: 'deterministic',
    condition: null,
    blocking: false,
    judgePrompt: null,
    passPrompt: null,
    failPrompt: null,
    isActive: true,
    createdAt: t(30),
    updatedAt: t(30),
    ...c,
  });
  ws.criteriaGroups.set(SEED.criteriaGroup, {
    id: SEED.criteriaGroup,
    companyId: ws.id,
    botId: SEED.bots.storeAssistant,
    name: 'Shipping answers',
    revision: 3,
    createdAt: t(30),
    updatedAt: t(6),
    impactToken: 'imp_7f3a9c21e5',
    criteria: [
      crit(1, 'Uses the shipping article', {
        blocking: true,
        condition: { scope: 'SCALAR', predicate: { left: { path: 'usedArticles.length', dataType: 'number' }, operator: 'gt', right: { value: 0 } } },
      }),
      crit(2, 'Does not escalate', {
        condition: { scope: 'SCALAR', predicate: { left: { path: 'type', dataType: 'string' }, operator: 'eq', right: { value: 'message' } } },
      }),
    ],
  });
  const cases: [string, string | null, string[]][] = [
    ['Standard shipping time', seedId('conversation', 'a', 4), [SEED.criteriaGroup]],
    ['Express delivery question', seedId('conversation', 'a', 8), [SEED.criteriaGroup]],
    ['Sale item return', SEED.negativeConversation, []],
  ];
  cases.forEach(([name, src, groupIds], i) => {
    ws.testCases.set(SEED.testCases[i], {
      id: SEED.testCases[i],
      companyId: ws.id,
      botId: SEED.bots.storeAssistant,
      name,
      sourceInteractionId: src,
      criteria:
        i === 2
          ? [crit(3, 'Mentions Final Sale', { type: 'llm_judge', judgePrompt: 'Does the answer say Final Sale items cannot be returned?', passPrompt: 'It does.', failPrompt: 'It does not.' })]
          : [],
      groupIds,
      createdAt: t(25 - i),
      updatedAt: t(25 - i),
    });
  });
  ws.testSets.set(SEED.testSet, {
    id: SEED.testSet,
    companyId: ws.id,
    botId: SEED.bots.storeAssistant,
    name: 'Store Assistant regression',
    caseIds: [...SEED.testCases],
    createdAt: t(20),
    updatedAt: t(4),
  });
  ws.promptVersions.set(SEED.promptVersions.v1, { id: SEED.promptVersions.v1, companyId: ws.id, botId: SEED.bots.storeAssistant, version: 1, status: 'PUBLISHED', createdAt: t(200) });
  ws.promptVersions.set(SEED.promptVersions.v2, { id: SEED.promptVersions.v2, companyId: ws.id, botId: SEED.bots.storeAssistant, version: 2, status: 'DRAFT', createdAt: t(1) });
}

/** In this order: the review needs the conversations, the conversations need the tags and articles. */
function seedWorkspaceA(state: SandboxState, now: number): Workspace {
  const ws = createWorkspace(SEED.workspaceA, 'Northwind Outfitters');
  const t = daysAgoFrom(now);
  seedAgents(ws, t);
  seedTags(ws, t);
  seedArticles(ws, t);
  seedDrafts(ws, t);
  seedConversations(ws, now);
  seedSources(ws, now, t);
  seedActions(ws, t);
  seedDataSteps(ws, t, state.baseUrl);
  seedRules(ws, t);
  seedReview(ws, now);
  seedTestSuite(ws, t);
  return ws;
}

function seedWorkspaceB(now: number): Workspace {
  const ws = createWorkspace(SEED.workspaceB, 'Globex Hardware');
  const t = daysAgoFrom(now);
  ws.bots.set(SEED.bots.globexHelpdesk, {
    id: SEED.bots.globexHelpdesk,
    companyId: ws.id,
    name: 'Globex Helpdesk',
    description: 'Answers hardware questions.',
    channels: ['chat'],
    createdAt: t(100),
    isActive: true,
  });
  ws.folders.set(SEED.folders.globexFaq, { id: SEED.folders.globexFaq, companyId: ws.id, name: 'FAQ', parentFolderId: null, createdAt: t(90), updatedAt: t(90) });
  const jid = seedId('junction', 'b', 1);
  ws.botFolderJunctions.set(jid, { id: jid, companyId: ws.id, botId: SEED.bots.globexHelpdesk, folderId: SEED.folders.globexFaq, createdAt: t(90) });
  ws.articles.set(SEED.articles.globexWarranty, {
    id: SEED.articles.globexWarranty,
    title: 'Tool warranty',
    mainKnowledge: 'Globex power tools carry a 3-year limited warranty. Batteries are covered for 1 year.',
    agentInstruction: '',
    questions: ['How long is the warranty on drills?'],
    keywords: ['warranty', 'drill', 'battery'],
    escalation: false,
    misc: {},
    active: true,
    public: true,
    parentFolderId: SEED.folders.globexFaq,
    companyId: ws.id,
    createdAt: t(90),
    updatedAt: t(90),
    version: 1,
    isDraft: false,
    isDraftPublished: false,
    originalArticleId: null,
    originalArticleVersion: null,
    createdBy: seedId('user', 'b', 1),
    updatedBy: seedId('user', 'b', 1),
    origin: 'UI_CREATED',
    documentUrl: null,
  });
  const question = 'How long is the warranty on drills?';
  const conv = buildConversation({
    id: SEED.globexConversation,
    companyId: ws.id,
    botId: SEED.bots.globexHelpdesk,
    createdAt: now - DAY_MS,
    now,
    source: 'widget',
    channel: 'chat',
    ticket: null,
    customer: null,
    locale: null,
    eventId: (k) => eventSeedId('b', 1, k),
    turns: [{ userAt: SECOND_MS, message: question, replyAt: 3 * SECOND_MS, reply: recordReply(ws, SEED.bots.globexHelpdesk, question) }],
    tags: [],
    attachment: null,
    handOver: null,
    thumbs: null,
    csat: null,
  });
  ws.conversations.set(conv.id, conv);
  return ws;
}

/**
 * Seeds both workspaces into the state, and `generated` more conversations into workspace A.
 * `state.baseUrl` must be set (data steps point at the sandbox's mock routes).
 */
export function seedState(state: SandboxState, generated = 0): void {
  const now = state.now();
  const a = seedWorkspaceA(state, now);
  if (generated > 0) a.conversations.addGenerated(new GeneratedConversations(a, generated, now));
  const b = seedWorkspaceB(now);
  state.workspaces.set(a.id, a);
  state.workspaces.set(b.id, b);
}
