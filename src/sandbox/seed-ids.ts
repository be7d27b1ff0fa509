/**
 * The ids of the seed's records that code and tests name (seed.ts builds the records). Ids are
 * deterministic (see ids.ts), so a test can name a seeded record before the sandbox starts.
 */
import { eventSeedId, seedId } from './ids.js';

export const SEED = {
  workspaceA: seedId('workspace', 'a', 1),
  workspaceB: seedId('workspace', 'b', 1),
  users: {
    dana: seedId('user', 'a', 1), // Dana Whitfield, support lead
    luis: seedId('user', 'a', 2), // Luis Ortega, knowledge manager
  },
  bots: {
    storeAssistant: seedId('bot', 'a', 1), // chat
    emailSupport: seedId('bot', 'a', 2), // email
    globexHelpdesk: seedId('bot', 'b', 1), // workspace B
  },
  folders: {
    shipping: seedId('folder', 'a', 1), // "Shipping & Delivery" (root)
    international: seedId('folder', 'a', 2), // "International Shipping" (nested in shipping)
    accountReturns: seedId('folder', 'a', 3), // "Account & Returns" (root)
    globexFaq: seedId('folder', 'b', 1),
  },
  articles: {
    shippingTimes: seedId('article', 'a', 1),
    orderTracking: seedId('article', 'a', 2),
    internationalShipping: seedId('article', 'a', 3),
    returnsPolicy: seedId('article', 'a', 4),
    passwordReset: seedId('article', 'a', 5),
    warranty: seedId('article', 'a', 6),
    expressDelivery: seedId('article', 'a', 7),
    holidayCutoffs: seedId('article', 'a', 8), // live but inactive
    returnsPolicyDraft: seedId('article', 'a', 9), // draft of returnsPolicy
    giftCardsDraft: seedId('article', 'a', 10), // new draft, no original
    globexWarranty: seedId('article', 'b', 1),
  },
  /** conversation 1 (about 2 hours old): user event 1, svcbot event 2 rated approved=false, unresolved */
  negativeConversation: seedId('conversation', 'a', 1),
  negativeUserEvent: eventSeedId('a', 1, 1),
  negativeEvent: eventSeedId('a', 1, 2),
  /** conversation 2: warranty claim whose user event 1 carries an attachment */
  attachmentConversation: seedId('conversation', 'a', 2),
  /** conversation 41: synced from the helpdesk, never touched by the service (excluded from the list route) */
  untouchedConversation: seedId('conversation', 'a', 41),
  globexConversation: seedId('conversation', 'b', 1),
  sources: {
    webCompleted: seedId('source', 'a', 1),
    webFailed: seedId('source', 'a', 2),
    notesPage: seedId('source', 'a', 3),
  },
  jobs: {
    webCompleted: 'job_seed_web_shipping',
    webFailed: 'job_seed_web_failed',
    notesPage: 'job_seed_notes_returns',
  },
  tools: {
    orderStatus: seedId('tool', 'a', 1), // action
    returnLabel: seedId('tool', 'a', 2), // action
    customerTier: seedId('tool', 'a', 3), // attribute (alwaysGet)
  },
  dataSteps: {
    orderStatusLookup: seedId('dataStep', 'a', 1),
    returnLabelCreate: seedId('dataStep', 'a', 2),
    customerTierLookup: seedId('dataStep', 'a', 3),
  },
  rules: {
    whereIsMyOrder: seedId('rule', 'a', 1), // intent rule, versions v1 (historical), v2 (published), v3 (draft)
    refundApproval: seedId('rule', 'a', 2), // business rule
  },
  replay: seedId('replay', 'a', 1),
  refineSession: seedId('refineSession', 'a', 1),
  criteriaGroup: seedId('criteriaGroup', 'a', 1),
  testCases: [seedId('testCase', 'a', 1), seedId('testCase', 'a', 2), seedId('testCase', 'a', 3)],
  testSet: seedId('testSet', 'a', 1),
  promptVersions: { v1: seedId('promptVersion', 'a', 1), v2: seedId('promptVersion', 'a', 2) },
  tagGroups: { topics: seedId('tagGroup', 'a', 1), system: seedId('tagGroup', 'a', 2) },
  tags: {
    shipping: seedId('tag', 'a', 1),
    returns: seedId('tag', 'a', 2),
    account: seedId('tag', 'a', 3),
    warranty: seedId('tag', 'a', 4),
    urgent: seedId('tag', 'a', 5),
  },
} as const;

export type SeedIds = typeof SEED;
