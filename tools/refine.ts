import { z } from 'zod';
import { defineGroup, defineTool, type ToolContext } from '../src/engine/define.js';
import { idInput } from '../src/engine/inputs.js';
import { isRecord, recordOf } from '../src/json.js';
import { pollUntil } from '../src/engine/poll.js';
import { briefComparison, compareArticle, loadDraftPairs } from './lib/article-review.js';
import { defined } from './lib/records.js';
import { shape } from './lib/shapes.js';
import { reviewRefineSession } from './prompts.js';

/** Only `active` is always there (the transform says so when the API answers null); the rest is the session. */
const session = shape(
  { active: z.boolean() },
  {
    id: z.string(),
    status: z.string(),
    iterations: z.array(z.unknown()),
  },
);

const target = {
  interactionId: idInput(),
  eventId: idInput(),
};

const ERRORS = {
  400: "eventId must be an agent (svcbot) answer of this conversation with a customer message before it (list_conversations shows each conversation's events)",
  404: 'the conversation or the event does not exist in this workspace (list_conversations lists conversations and their event ids)',
  500: 'the refine session could not be loaded; try again shortly',
};

const NO_SESSION = 'No active refine session for this answer (the API returns null: none was started, or it was already published or closed). Refine sessions are started from the dashboard.';

type Session = Record<string, unknown> & { latestIteration?: Record<string, unknown> | null; iterations?: Record<string, unknown>[] };

function iterationsOf(value: Session): Record<string, unknown>[] {
  if (Array.isArray(value.iterations)) return value.iterations.filter(isRecord);
  return isRecord(value.latestIteration) ? [value.latestIteration] : [];
}

function latestOf(value: Session | null): Record<string, unknown> | undefined {
  if (!value) return undefined;
  const latest = value.latestIteration ?? iterationsOf(value)[0];
  return isRecord(latest) ? latest : undefined;
}

function changesOf(iteration: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(iteration.changes) ? iteration.changes.filter(isRecord) : [];
}

/**
 * A session's summary can claim one fix while its linked draft makes another: each proposed
 * article change carries the diff of its draft against the live article (two requests for any
 * number of drafts), and a warning when the draft predates the session, the live article moved
 * on, or the draft is gone.
 */
async function reviewDrafts(context: ToolContext, session: Session, iterations: Record<string, unknown>[]): Promise<{ iterations: Record<string, unknown>[]; warnings: string[] }> {
  const draftIds = iterations
    .flatMap(changesOf)
    .map((change) => change.draftArticleId)
    .filter((id): id is string => typeof id === 'string' && id !== '');
  const pairs = await loadDraftPairs(context, draftIds);
  const began = typeof session.createdAt === 'string' ? Date.parse(session.createdAt) : Number.NaN;
  const warnings = new Set<string>();
  const review = (draftId: string): Record<string, unknown> => {
    const pair = pairs.get(draftId);
    if (!pair) {
      const missing = `Draft ${draftId} no longer exists: nothing can be reviewed or published for this change.`;
      warnings.add(missing);
      return { missing: true };
    }
    const comparison = compareArticle(pair.draft, pair.live);
    const notes = [...comparison.warnings];
    const created = typeof pair.draft.createdAt === 'string' ? Date.parse(pair.draft.createdAt) : Number.NaN;
    if (created < began) {
      notes.unshift(
        `Draft ${draftId} was created ${String(pair.draft.createdAt)}, before this refine session began (${String(session.createdAt)}): it may not hold this session's fix. Check that its diff does what the summary says before publishing.`,
      );
    }
    for (const note of notes) warnings.add(note);
    return briefComparison(comparison);
  };
  const reviewed = iterations.map((iteration) => ({
    ...iteration,
    changes: changesOf(iteration).map((change) => (typeof change.draftArticleId === 'string' && change.draftArticleId ? { ...change, draftReview: review(change.draftArticleId) } : change)),
  }));
  return { iterations: reviewed, warnings: [...warnings] };
}

/** The session without `latestIteration` (the API repeats iterations[0] there), its article changes reviewed. */
async function reviewSession(response: unknown, context: ToolContext): Promise<unknown> {
  if (!isRecord(response)) return response;
  const { latestIteration: _repeated, ...session } = response as Session;
  const { iterations, warnings } = await reviewDrafts(context, response as Session, iterationsOf(response as Session));
  return { ...(warnings.length ? { warnings } : {}), ...session, iterations };
}

function compactIteration(item: Record<string, unknown>): Record<string, unknown> {
  const changes = changesOf(item);
  return defined({
    id: item.id,
    iterationNumber: item.iterationNumber,
    status: item.status,
    confidence: item.confidence,
    summary: item.summary,
    feedbackNote: item.feedbackNote,
    error: item.error,
    rootCause: changes.map(compactCause).find(Boolean),
    changes: changes.length ? changes.map(compactChange) : undefined,
    oldAnswer: isRecord(item.oldAnswerSnapshot) ? item.oldAnswerSnapshot.content : undefined,
    newAnswer: isRecord(item.newAnswerSnapshot) ? item.newAnswerSnapshot.content : undefined,
    replayInteractionId: item.replayInteractionId,
    startedAt: item.startedAt,
    completedAt: item.completedAt,
  });
}

const getRefineSession = defineTool({
  name: 'get_refine_session',
  title: 'Get the refine session of an answer',
  words: 'fix suggested proposed root cause analysis improve poor bad open read view details look inspect fetch review suggestion improvement',
  gives: ['replayId'],
  scope: 'read',
  description: "Shows the fix proposed for a poor agent answer by its refine (fix-review) session: root cause, changes with each draft's diff, replayed answer. Ids from list_conversations.",
  input: z.object(target),
  route: { method: 'GET', path: '/v2/fix-review/interactions/{interactionId}/events/{eventId}/session/public', answersNull: true },
  transform: async (response, input, context) =>
    response === null || response === undefined
      ? { active: false, interactionId: input.interactionId, eventId: input.eventId, note: NO_SESSION }
      : { active: true, ...((await reviewSession(response, context)) as Record<string, unknown>) },
  output: session,
  list: { items: 'iterations', compact: compactIteration, more: 'Use view "full" for every field of each iteration.' },
  errors: ERRORS,
});

const TERMINAL = new Set(['ready', 'no_change', 'failed', 'published']);
const STAGE: Record<string, number> = { queued: 0, generating_changes: 1, replaying: 2 };

function statusOf(value: Session | null): string {
  if (value === null) return 'no active session';
  return String(latestOf(value)?.status ?? 'no iteration yet');
}

const NEXT: Record<string, string> = {
  ready:
    "Read the warnings and each change's draftReview (its diff) and check it does what the summary says; the drafts (draftArticleId, draftPromptVersionId, draftRuleVersionId) apply only once published. compare_article_draft and compare_rule_versions show a draft in full.",
  no_change: 'The analysis found no actionable fix; consider improving the knowledge or rules by hand.',
  failed: 'The iteration failed: read error, then retry from the dashboard.',
  published: 'This iteration was already published.',
};

function compactChange(item: Record<string, unknown>): Record<string, unknown> {
  return defined({
    changeType: item.changeType,
    draftArticleId: item.draftArticleId,
    draftPromptVersionId: item.draftPromptVersionId,
    draftRuleVersionId: item.draftRuleVersionId,
    target: recordOf(item.rootCause).target,
    draftReview: item.draftReview,
  });
}

function compactCause(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!isRecord(item.rootCause)) return undefined;
  const { failureStage, failureMode, reasoning, target } = item.rootCause;
  return defined({ failureStage, failureMode, target, reasoning });
}

async function waitForRefine(input: { interactionId: string; eventId: string; timeoutSeconds?: number }, context: ToolContext): Promise<unknown> {
  const started = Date.now();
  let lastStatus = 'not read yet';
  let lastIteration: unknown;
  const outcome = await pollUntil<Session | null>(context, {
    fetch: async () => ((await context.call('get_refine_session', { interactionId: input.interactionId, eventId: input.eventId })) ?? null) as Session | null,
    done: (value) => value === null || TERMINAL.has(statusOf(value)),
    describe: (value) => {
      lastStatus = statusOf(value);
      lastIteration = latestOf(value)?.iterationNumber;
      // One step per stage; pollUntil keeps it increasing while a stage repeats.
      const progress = value === null || TERMINAL.has(lastStatus) ? 3 : (STAGE[lastStatus] ?? 0);
      return { progress, total: 3, message: `refine iteration ${lastIteration ?? '?'}: ${lastStatus}` };
    },
    timeoutSeconds: input.timeoutSeconds ?? 120,
    intervalMs: 1000,
    maxIntervalMs: 5000,
  });
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const where = `last status seen: ${lastStatus}${lastIteration !== undefined ? ` (iteration ${lastIteration})` : ''}`;
  // Like wait_for_sources: an unfinished wait is a result that says where things stand, not an error.
  if (outcome.status !== 'done') {
    return {
      finished: false,
      status: outcome.status === 'timeout' ? 'timed_out' : 'cancelled',
      lastStatus,
      iterationNumber: lastIteration,
      polls: outcome.rounds,
      waitedSeconds: seconds,
      note:
        outcome.status === 'timeout'
          ? `Still running after ${seconds}s; ${where}. Call wait_for_refine_session again to keep waiting.`
          : `Stopped waiting (cancelled after ${seconds}s); ${where}. Nothing was changed.`,
    };
  }
  const value = outcome.state;
  if (!value) return { finished: true, active: false, interactionId: input.interactionId, eventId: input.eventId, note: NO_SESSION, polls: outcome.rounds };
  const found = latestOf(value);
  const { iterations, warnings } = await reviewDrafts(context, value, found ? [found] : []);
  const latest = iterations[0] ?? {};
  const { id: iterationId, ...iteration } = compactIteration(latest);
  return defined({
    finished: true,
    warnings: warnings.length ? warnings : undefined,
    status: latest.status,
    sessionId: value.id,
    interactionId: value.interactionId ?? input.interactionId,
    eventId: value.targetEventId ?? input.eventId,
    iterationId,
    sessionCreatedAt: value.createdAt,
    ...iteration,
    next: NEXT[String(latest.status)],
    polls: outcome.rounds,
    waitedSeconds: seconds,
  });
}

const waitForRefineSession = defineTool({
  name: 'wait_for_refine_session',
  title: 'Wait for a refine session',
  words: 'until ready finish done poll block complete notify fix review suggestion improvement root cause',
  scope: 'read',
  description: 'Waits until the refine (fix-review) session of an answer is ready, no_change or failed, with progress; then gives its proposed changes with their draft diffs.',
  input: z.object({
    ...target,
    timeoutSeconds: z.number().int('must be a whole number').min(1, 'must be from 1 to 3600').max(3600, 'must be from 1 to 3600').optional().describe('default 120'),
  }),
  handler: waitForRefine,
  stoppedEarly: (data) => (isRecord(data) && data.finished === false ? `INCOMPLETE: ${String(data.note)}` : undefined),
  errors: ERRORS,
  taskSupport: 'optional',
});

export const refine = defineGroup({
  name: 'refine',
  description: 'Refine (fix-review) sessions of agent answers.',
  tools: [getRefineSession, waitForRefineSession],
  resources: [
    {
      name: 'refine-session',
      title: 'Refine session',
      description: 'The active refine session of one agent answer (conversation id and event id).',
      uri: 'svc://refine/{interactionId}/{eventId}',
      tool: 'get_refine_session',
      complete: { interactionId: { tool: 'list_conversations', args: { limit: 100 }, pick: (item) => (typeof item.id === 'string' ? item.id : undefined) } },
    },
  ],
  prompts: [reviewRefineSession],
});
