import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { z } from 'zod';
import { defineGroup, defineTool, type ToolContext } from '../src/engine/define.js';
import { ToolFailure } from '../src/engine/errors.js';
import { clockNow, idInput } from '../src/engine/inputs.js';
import { isRecord } from '../src/json.js';
import { channelEnum } from './lib/inputs.js';
import { checkWindow, feedbackFilter, filters, filtersOf, terseFilters, window } from './lib/conversation-filters.js';
import { createExportFile } from './lib/export-file.js';
import { previewFeedback, previewGenerateAnswer } from './lib/conversation-effects.js';
import { defined, shortened } from './lib/records.js';
import { triageNegativeAnswers } from './prompts.js';
import { shape, successShape } from './lib/shapes.js';
import { cutShort, describeScope, MAX_WINDOW_MS, scanConversations, type ScanRequest } from './lib/scan.js';
import { GROUP_BY, type ScanSummary, type StatsResult } from '../src/views/results.js';
import { changeOf, ConversationStats } from './lib/stats.js';
import { renderStats } from './lib/stats-text.js';
import { definitionsFor } from './lib/definitions.js';
import { countFromMirror, mirrorAnswers } from './lib/mirror/answer.js';
import { MirrorUnavailable } from '../src/mirror/database.js';
import { answerGenerated, conversationDeleted, feedbackGiven } from './lib/mirror/writes.js';

const listInput = z
  .object({
    ...filters,
    limit: z.number().int('must be a whole number').min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100').optional().describe('default 50'),
    cursor: z.string().min(1).optional().describe('nextCursor or prevCursor of a page'),
    direction: z.enum(['next', 'previous']).optional().describe('next: older (default)'),
  })
  .superRefine((input, context) => checkWindow(input, context, MAX_WINDOW_MS))
  // A since without until is measured against this call's clock, not the API's later one.
  .transform((input) => (input.since !== undefined && input.until === undefined ? { ...input, until: clockNow() } : input));

/** Times are epoch ms upstream; views may show them as ISO text. */
const time = z.union([z.number(), z.string()]);
/** Items of both views: compact keeps these documented fields (events shrunk), full keeps every one. */
const conversation = shape(
  { id: z.string(), createdAt: time, source: z.string(), channel: z.string(), hasFeedback: z.boolean(), events: z.array(z.unknown()) },
  { resolved: z.boolean().nullable(), subjectPreview: z.string().nullable() },
);

function compactEvent(item: Record<string, unknown>): Record<string, unknown> {
  return defined({
    id: item.id,
    createdAt: item.createdAt,
    role: item.role,
    // Most events are normal messages: the compact view names only the other types.
    type: item.type === 'message' ? undefined : item.type,
    message: shortened(item.message),
    approved: item.approved,
    resolved: item.resolved,
    feedback: item.feedback,
    csatRating: item.csatRating,
    usedArticles:
      Array.isArray(item.usedArticles) && item.usedArticles.length ? (item.usedArticles as Array<Record<string, unknown>>).map((article) => ({ id: article.id, title: article.title })) : undefined,
  });
}

function compactConversation(item: Record<string, unknown>): Record<string, unknown> {
  const events = Array.isArray(item.events) ? (item.events as Record<string, unknown>[]) : [];
  return defined({
    id: item.id,
    botId: item.botId,
    agentName: item.agentName,
    createdAt: item.createdAt,
    channel: item.channel,
    source: item.source,
    status: item.status,
    subjectPreview: item.subjectPreview,
    hasFeedback: item.hasFeedback,
    resolved: item.resolved,
    events: events.map(compactEvent),
  });
}

/**
 * With a botId filter every listed conversation is that agent's, so it is named by botId. Its
 * name would cost one more request per page; export_conversations and conversation_stats give both.
 */
function attributePage(response: unknown, input: z.output<typeof listInput>): unknown {
  if (!isRecord(response) || !Array.isArray(response.interactions)) return response;
  const interactions = input.botId ? response.interactions.map((item) => ({ id: item.id, botId: input.botId, ...item })) : response.interactions;
  if (interactions.length > 0) return { ...response, interactions };
  const paged = input.cursor ? ` past cursor ${input.cursor} (direction ${input.direction ?? 'next'})` : '';
  return { ...response, interactions, note: `No conversation matched ${describeScope({ ...window(input), filters: filtersOf(input) })}${paged}.` };
}

const conversationList = {
  items: 'interactions',
  compact: compactConversation,
  more: 'Lower limit, narrow the window or filters, or page on with nextCursor.',
};

const listConversations = defineTool({
  name: 'list_conversations',
  title: 'List conversations',
  words: 'chats threads transcripts messages recent latest browse overview available existing current interaction ticket session',
  gives: ['interactionId', 'eventId'],
  scope: 'read',
  core: true,
  description:
    'Browses conversations (chats, emails) with messages and feedback, newest first, a page at a time over at most 90 days; finds conversation and event ids. Counts: conversation_stats; a whole window: export_conversations.',
  input: listInput,
  route: { method: 'GET', path: '/v2/hc-interactions/public', query: ['since', 'until', 'limit', 'cursor', 'direction', 'botId', 'source', 'channel', 'question', 'answer', 'csat'] },
  output: shape({ interactions: z.array(conversation), hasMore: z.boolean(), nextCursor: z.string().nullable(), prevCursor: z.string().nullable() }),
  transform: (response, input) => attributePage(response, input),
  list: conversationList,
  errors: { 400: 'check since/until (since < until, at most 90 days), limit 1-100, the question/answer text rules, and that cursor came from a previous page' },
});

/**
 * What an export reads without maxConversations when it returns the conversations: a result shows
 * what fits in its cap anyway, and reading a year costs minutes of the rate budget. With outputFile
 * it reads every one, which is what a file is for.
 */
const EXPORT_DEFAULT_MAX = 500;
const exportMax = (input: { maxConversations?: number; outputFile?: string }) => input.maxConversations ?? (input.outputFile ? undefined : EXPORT_DEFAULT_MAX);

const exportInput = z
  .object({
    ...terseFilters,
    feedback: feedbackFilter,
    maxConversations: z.number().int().min(1).max(100_000).optional().describe(`Default ${EXPORT_DEFAULT_MAX}; with outputFile, all`),
    outputFile: z
      .string()
      .regex(/^[\w.-]+\.ndjson$/, 'must be a plain file name ending in .ndjson (no folders)')
      .optional()
      .describe('Write all to this file in the export folder, return a summary (stdio only)'),
  })
  .superRefine((input, context) => checkWindow(input, context, undefined));

type ExportInput = z.output<typeof exportInput>;

function scanRequest(input: Omit<ExportInput, 'outputFile' | 'maxConversations'>, { since, until }: { since: number; until: number }, verb: string, max: number | undefined): ScanRequest {
  const feedback = input.feedback;
  return {
    filters: filtersOf(input),
    since,
    until,
    keep: feedback && feedback !== 'any' ? { test: (item) => hasFeedback(item, feedback === 'positive'), label: `feedback=${feedback}` } : undefined,
    max,
    verb,
  };
}

function hasFeedback(item: Record<string, unknown>, approved: boolean): boolean {
  const events = Array.isArray(item.events) ? (item.events as Array<{ approved?: unknown }>) : [];
  return events.some((entry) => entry.approved === approved);
}

async function exportConversations(input: ExportInput, context: ToolContext): Promise<unknown> {
  if (input.outputFile && !context.local) throw new ToolFailure('outputFile is only available when svc-mcp runs locally over stdio; call without it to get the conversations in the result.');

  const { file, stream } = input.outputFile ? await createExportFile(context.config.exportDir, input.outputFile) : {};
  const kept: Record<string, unknown>[] = [];
  const stats = new ConversationStats(['agent', 'source', 'channel'], { pairs: true });
  let summary: ScanSummary;
  try {
    summary = await scanConversations(context, scanRequest(input, window(input), 'Export', exportMax(input)), async (item) => {
      stats.add(item);
      if (stream) {
        if (!stream.write(`${JSON.stringify(item)}\n`)) await once(stream, 'drain');
      } else {
        kept.push(item);
      }
    });
  } finally {
    if (stream) {
      stream.end();
      await once(stream, 'close');
    }
  }
  const result = { ...summary, stats: { ...definitionsFor(false, context), ...stats.exportResult() } };
  if (file) return { ...result, file, bytes: (await stat(file)).size };
  return { ...result, interactions: kept };
}

const exportTool = defineTool({
  name: 'export_conversations',
  title: 'Export conversations',
  words: 'dump download save file spreadsheet transcripts history months triage negative every whole entire complete archive backup chat thread interaction ticket session',
  scope: 'read',
  core: true,
  description:
    'Collects the conversations matching the filters over any window (the first 500 unless maxConversations; all with outputFile), each naming its agent, with counts of those read by agent, source and channel; feedback keeps thumbs-down or up ones.',
  input: exportInput,
  handler: exportConversations,
  stoppedEarly: (data, input) =>
    cutShort(
      data as ScanSummary,
      input.maxConversations === undefined
        ? `The default maxConversations=${EXPORT_DEFAULT_MAX} stopped the export: outputFile writes every one to a file; a higher maxConversations reads more.`
        : `maxConversations=${input.maxConversations} stopped the export: raise it, or give outputFile without it for every one.`,
    ),
  list: { ...conversationList, more: 'Use outputFile to get everything in a file, or narrow the filters.' },
  taskSupport: 'optional',
});

const statsInput = z
  .object({
    ...terseFilters,
    feedback: feedbackFilter,
    maxConversations: z.number().int().min(1).optional().describe('Default: count all.'),
    groupBy: z
      .array(z.enum(GROUP_BY))
      .min(1)
      .max(2, 'takes one dimension, or two to cross')
      .refine((dimensions) => new Set(dimensions).size === dimensions.length, 'must name two different dimensions to cross')
      .optional()
      .describe('Default agent.'),
    compareTo: z.enum(['previous']).optional(),
  })
  .superRefine((input, context) => checkWindow(input, context, undefined));

/**
 * With compareTo, one scan reads both windows as one span (the fewest slices, so no extra
 * requests where the two would share a slice) and counts each conversation in the window its
 * createdAt falls in. The previous window has the same number of instants and ends 1 ms before `since`.
 */
async function conversationStats(input: z.output<typeof statsInput>, context: ToolContext): Promise<unknown> {
  const dimensions = input.groupBy ?? (['agent'] as const);
  const cross = { cross: dimensions.length === 2 };
  const { since, until } = window(input);
  const previous = input.compareTo ? { since: 2 * since - until - 1, until: since - 1, stats: new ConversationStats(dimensions, cross) } : undefined;
  const stats = new ConversationStats(dimensions, cross);
  const filters = filtersOf(input);
  const windows = [...(previous ? [previous] : []), { since, until, stats }];
  let summary: ScanSummary | undefined;
  let unavailable: string | undefined;
  if (mirrorAnswers(context, filters)) {
    try {
      summary = await countFromMirror(context, { dimensions, filters, feedback: input.feedback, max: input.maxConversations, windows }, 'Count');
    } catch (error) {
      if (!(error instanceof MirrorUnavailable)) throw error;
      unavailable = `The workspace mirror cannot run here (${error.message}); counted from the API.`;
    }
  }
  summary ??= await scanConversations(context, scanRequest(input, { since: previous?.since ?? since, until }, 'Count', input.maxConversations), (item) =>
    (previous && Number(item.createdAt) < since ? previous.stats : stats).add(item),
  );
  if (unavailable) summary.note = `${unavailable} ${summary.note ?? ''}`.trim();
  const counted = stats.result();
  const result: StatsResult = { ...summary, since: iso(since), until: iso(until), ...counted, ...definitionsFor(previous !== undefined, context) };
  if (previous) {
    const earlier = previous.stats.result();
    result.count = counted.total.conversations;
    result.previous = { since: iso(previous.since), until: iso(previous.until), ...earlier };
    result.change = changeOf(counted, earlier);
  }
  return result;
}

const iso = (time: number) => new Date(time).toISOString();

const statsTool = defineTool({
  name: 'conversation_stats',
  title: 'Conversation statistics',
  words: 'statistics numbers metrics average rate trend totals volume count many breakdown per csat kpi report analytics chat thread transcript interaction ticket session',
  scope: 'read',
  core: true,
  description:
    'Counts conversations over any window by agent, source, channel, day, week, month or quarter (two crossed), or against the window before: answers, thumbs up/down, unresolved negatives, CSAT, escalations, articles behind thumbs-down. Filters as list_conversations.',
  input: statsInput,
  handler: conversationStats,
  stoppedEarly: (data, input) => cutShort(data as ScanSummary, `maxConversations=${input.maxConversations} stopped the count: raise it, or leave it out to count every one.`),
  text: renderStats,
  ui: 'stats',
  taskSupport: 'optional',
});

const generateAnswer = defineTool({
  name: 'generate_answer',
  title: "Send a message and get the agent's answer",
  words: 'ask try question reply respond simulate chat talk',
  gives: ['interactionId', 'eventId'],
  scope: 'write',
  core: true,
  description: 'Asks an agent a question as a customer would; returns its answer and the articles it used. Starts a conversation with botId (list_agents) or continues interactionId.',
  input: z
    .object({
      content: z.string().refine((text) => text.trim().length > 0, 'must not be empty'),
      role: z.enum(['user', 'agent', 'svcbot', 'otherbot']).optional().describe('Only user (default) gets a reply'),
      interactionId: z.string().min(1).optional(),
      botId: z.string().min(1).optional(),
      metadata: z
        .object({
          user_attributes: z.record(z.unknown()).optional(),
          channel: channelEnum.optional(),
        })
        .passthrough()
        .optional(),
    })
    .superRefine((input, context) => {
      if (!input.interactionId && !input.botId) {
        context.addIssue({ code: z.ZodIssueCode.custom, path: ['botId'], message: 'botId or interactionId is required' });
      }
    }),
  fallbacks: { botId: 'defaultBotId' },
  route: { method: 'POST', path: '/v2/hc-interactions/events/public', body: ['content', 'role', 'interactionId', 'botId', 'metadata'] },
  preview: previewGenerateAnswer,
  keepMirror: answerGenerated,
  done: (data) => {
    const events = (data as { events?: Array<{ interactionId?: string }> }).events ?? [];
    return `Conversation ${events[0]?.interactionId ?? '?'}: ${events.length} event(s) created; next: generate_answer with this interactionId to continue, give_feedback to rate the answer.`;
  },
  transform: (events) => ({ events }),
  output: shape({ events: z.array(shape({ id: z.string(), role: z.string(), type: z.string() }, { message: z.string().nullable(), usedArticles: z.array(z.unknown()) })) }),
  errors: { 500: 'an unknown interactionId or botId (list_conversations and list_agents give valid ids)' },
});

const giveFeedback = defineTool({
  name: 'give_feedback',
  title: 'Rate an answer',
  words: 'rate thumbs approve helpful wrong bad good mark undo reply score vote',
  scope: 'write',
  core: true,
  idempotent: true,
  description: 'Rates an agent answer thumbs up (approved true) or down (false), or clears it (null). Ids from list_conversations or generate_answer.',
  input: z.object({
    interactionId: idInput(),
    eventId: idInput(),
    approved: z.boolean().nullable().optional(),
  }),
  route: { method: 'POST', path: '/v2/hc-interactions/{interactionId}/feedback/public', body: ['eventId', 'approved'] },
  preview: previewFeedback,
  keepMirror: feedbackGiven,
  output: successShape,
  done: (_data, input) => `Feedback recorded on event ${input.eventId} of conversation ${input.interactionId}; its resolved flag was recomputed (list_conversations shows it).`,
  errors: {
    406: "the conversation or event is not accessible, the conversation has no events, or the event is not in that conversation (list_conversations shows each conversation's event ids)",
    500: 'the event or conversation could not be loaded or updated',
  },
});

const deleteConversation = defineTool({
  name: 'delete_conversation',
  title: 'Delete a conversation',
  words: 'remove erase wipe purge erasure chat test rid discard trash drop destroy thread transcript interaction ticket session',
  scope: 'write',
  destructive: true,
  idempotent: true,
  description: 'Permanently deletes a conversation and its messages, e.g. on an erasure request. Unknown ids also report success (list_conversations shows which exist).',
  input: z.object({ interactionId: idInput() }),
  route: { method: 'DELETE', path: '/v2/hc-interactions/{interactionId}/public' },
  keepMirror: conversationDeleted,
  output: successShape,
  preview: async (input) => [
    `Deletes conversation ${input.interactionId} with all its events and feedback. This is permanent: no route restores it.`,
    'No read route shows one conversation by id, so this preview cannot show its content or confirm it exists; the API reports success even for an unknown id. list_conversations finds it by time window.',
  ],
  done: (_data, input) => `Conversation ${input.interactionId} deleted permanently (the API reports success even for unknown ids).`,
  errors: { 500: 'a storage failure while deleting; the conversation may still exist' },
});

export const conversations = defineGroup({
  name: 'conversations',
  description: 'Conversations, their events and feedback.',
  tools: [listConversations, exportTool, statsTool, generateAnswer, giveFeedback, deleteConversation],
  aliases: {
    ...Object.fromEntries(['convo', 'chat', 'thread', 'transcript', 'ticket', 'interaction', 'dialog', 'dialogue'].map((name) => [name, 'conversation'])),
    upvote: 'thumb',
    downvote: 'thumb',
  },
  prompts: [triageNegativeAnswers],
});
