import { z } from 'zod';
import { clockNow, DAY_MS, timeInput } from '../../src/engine/inputs.js';
import { channelEnum, conversationSource, searchText } from './inputs.js';
import type { ConversationFilters } from './scan.js';

/**
 * What list_conversations, export_conversations and conversation_stats filter on, and their window
 * [since, until] with the upstream's defaults made explicit, so its rules are checked before sending.
 */

const DEFAULT_WINDOW_MS = 7 * DAY_MS;

// The spec sets no minimum length on these lists: an empty one is sent as given.
const sourceFilter = z.array(conversationSource).optional();
const channelFilter = z.array(channelEnum).optional();
/** The spec documents the CSAT filter's values but hides its parameter name: every tool that takes it says so. */
const csatFilter = z.number().int('must be a whole number').min(0, 'must be from 0 to 5').max(5, 'must be from 0 to 5').optional().describe('Name is a guess: the spec hides it');

export const filters = {
  since: timeInput('Default 7d ago.').optional(),
  until: timeInput('Default now.').optional(),
  botId: z.string().min(1).optional(),
  source: sourceFilter.describe('e.g. api, widget, ui, testsuite, replay'),
  channel: channelFilter,
  question: searchText('In customer messages; max 100 non-blank chars, no % _').optional(),
  answer: searchText('In agent answers, same rules').optional(),
  csat: csatFilter,
};

/** The same filters, described once in list_conversations: every listed token costs every user. */
export const terseFilters = {
  ...filters,
  source: sourceFilter,
  question: searchText('Customer text.').optional(),
  answer: searchText('Answer text.').optional(),
  csat: csatFilter,
};

export function filtersOf(input: ConversationFilters): ConversationFilters {
  return { botId: input.botId, source: input.source, channel: input.channel, question: input.question, answer: input.answer, csat: input.csat };
}

/** The upstream's defaults (since: now minus 7 days, until: now) made explicit, so the window rules can be checked before sending. */
export function window(input: { since?: number; until?: number }, now = clockNow()): { since: number; until: number } {
  return { since: input.since ?? now - DEFAULT_WINDOW_MS, until: input.until ?? now };
}

export function checkWindow(input: { since?: number; until?: number }, context: z.RefinementCtx, maxMs: number | undefined): void {
  const { since, until } = window(input);
  if (since >= until) {
    const message = input.since === undefined ? 'defaults to 7 days ago, which is not earlier than until: give since too' : 'must be earlier than until';
    context.addIssue({ code: z.ZodIssueCode.custom, path: ['since'], message });
  } else if (maxMs !== undefined && until - since > maxMs) {
    context.addIssue({ code: z.ZodIssueCode.custom, path: ['since'], message: 'window from since to until must be at most 90 days (export_conversations takes longer windows)' });
  }
}

export const feedbackFilter = z.enum(['negative', 'positive', 'any']).optional();
