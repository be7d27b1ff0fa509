/**
 * Refine (fix-review) sessions. The read route returns the active session for one agent answer,
 * or JSON null. Iterations move queued -> generating_changes -> replaying -> ready | no_change |
 * failed, each stage lasting `refineTimings.stepMs`; the status is brought up to date on read.
 * New sessions (or new iterations of an active one) are started by the control route
 * `POST /__sandbox/refine` (see quality-control.ts and CHOICES.md).
 */
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { iso, requireInWorkspace, type SandboxState, type Workspace } from '../state.js';
import type { AnswerSnapshot, Article, Conversation, FixChange, FixIteration, FixReviewSession, StoredEvent } from '../types.js';

export type RefineOutcome = 'ready' | 'no_change' | 'failed';
export const REFINE_OUTCOMES: readonly RefineOutcome[] = ['ready', 'no_change', 'failed'];
const DEFAULT_STEP_MS = 1500;

interface Plan {
  startedMs: number;
  stepMs: number;
  outcome: RefineOutcome;
  ws: Workspace;
}

/** Timing and planned outcome of iterations started at runtime (seeded ones are already terminal). */
const plans = new WeakMap<FixIteration, Plan>();

/** The event under review, checked as the spec says: in the conversation, svcbot-authored, with a linked user event. */
export function targetOf(state: SandboxState, ws: Workspace, interactionId: string, eventId: string): { conversation: Conversation; event: StoredEvent; userEvent: StoredEvent } {
  const empty = [
    ['id', interactionId],
    ['eventId', eventId],
  ]
    .filter(([, value]) => value.trim() === '')
    .map(([name]) => `${name} should not be empty`);
  if (empty.length) throw badRequest(empty);
  const conversation = requireInWorkspace(state, ws, 'conversations', interactionId, 'Interaction not found');
  const index = conversation.events.findIndex((e) => e.id === eventId);
  if (index < 0) {
    if (ws.conversations.holdsEvent(eventId)) throw badRequest(['Event does not belong to the interaction']);
    throw notFound('Event not found');
  }
  const event = conversation.events[index];
  if (event.role !== 'svcbot') throw badRequest(['Event is not an agent (svcbot) response']);
  const userEvent = conversation.events
    .slice(0, index)
    .reverse()
    .find((e) => e.role === 'user');
  if (!userEvent) throw badRequest(['Event has no linked user event']);
  return { conversation, event, userEvent };
}

function activeSession(ws: Workspace, interactionId: string, eventId: string): FixReviewSession | undefined {
  return [...ws.refineSessions.values()].find((s) => s.interactionId === interactionId && s.targetEventId === eventId && s.status === 'active');
}

function snapshot(conversation: Conversation, event: StoredEvent): AnswerSnapshot {
  return { interactionId: conversation.id, eventId: event.id, originalEventId: null, content: event.message, role: event.role, type: event.type, createdAt: iso(event.createdAt) };
}

function finish(it: FixIteration, plan: Plan, at: number): void {
  const { ws } = plan;
  it.completedAt = iso(at);
  if (plan.outcome === 'failed') {
    it.error = 'The replay did not produce an answer: the agent timed out while searching knowledge.';
    return;
  }
  if (plan.outcome === 'no_change') {
    it.summary = 'The answer already matches the knowledge base and the rules; no actionable fix was found.';
    it.confidence = 'low';
    return;
  }
  const conversation = ws.conversations.get(it.interactionId);
  const event = conversation?.events.find((e) => e.id === it.targetEventId);
  const replay = addReplay(it, plan, conversation, at);
  const usedArticle = event?.usedArticles[0] ? ws.articles.get(event.usedArticles[0].id) : undefined;
  it.changes = [draftFix(it, ws, conversation, usedArticle, at)];
  it.summary = usedArticle
    ? `Updated a draft of "${usedArticle.title}" so the key detail comes first; the replayed answer now states it.`
    : 'Drafted a prompt change so the agent includes the missing information; the replayed answer now does.';
  it.confidence = 'medium';
  it.newAnswerSnapshot = {
    interactionId: replay.id,
    eventId: replay.eventId,
    originalEventId: it.targetEventId,
    content: `${event?.message ?? 'The agent answer'} (Revised: the key detail is now stated first.)`,
    role: 'svcbot',
    type: 'message',
    createdAt: iso(at),
  };
}

/** The replay an iteration ran, stored as the API lists replays; the iteration names it. */
function addReplay(it: FixIteration, plan: Plan, conversation: Conversation | undefined, at: number): { id: string; eventId: string } {
  const { ws } = plan;
  const replay = { id: newId(), eventId: newId() };
  it.replayInteractionId = replay.id;
  it.replayEventId = replay.eventId;
  ws.replays.set(replay.id, {
    id: replay.id,
    companyId: ws.id,
    botId: conversation?.botId ?? '',
    source: 'replay',
    channel: conversation?.channel ?? 'chat',
    status: 'done',
    createdAt: iso(plan.startedMs + 2 * plan.stepMs),
    updatedAt: iso(at),
    parentInteractionId: it.interactionId,
    replay: { target_event_id: it.targetEventId, status: 'done' },
  });
  return replay;
}

/** The fix an iteration proposes, with its draft: of the article the answer used, else of the agent's prompt. */
function draftFix(it: FixIteration, ws: Workspace, conversation: Conversation | undefined, usedArticle: Article | undefined, at: number): FixChange {
  const change: FixChange = {
    id: newId(),
    companyId: ws.id,
    sessionId: it.sessionId,
    iterationId: it.id,
    interactionId: it.interactionId,
    targetEventId: it.targetEventId,
    rootCause: usedArticle
      ? {
          failureStage: 'knowledge_content',
          failureMode: 'incorrect_knowledge',
          reasoning: `The article "${usedArticle.title}" does not state the detail the customer asked about near the top, so the answer stayed generic.`,
          target: { kind: 'kb_article', operation: 'update', articleId: usedArticle.id },
        }
      : {
          failureStage: 'answer_generation',
          failureMode: 'required_information_omitted',
          reasoning: 'The answer skipped information the customer needed; the prompt now asks for it explicitly.',
          target: { kind: 'prompt', operation: 'update', botId: conversation?.botId ?? null },
        },
    changeType: usedArticle ? 'update_article' : 'update_prompt',
    draftPromptVersionId: null,
    draftArticleId: null,
    draftRuleVersionId: null,
    createdAt: iso(at),
  };
  if (usedArticle) {
    const draftId = newId();
    ws.articles.set(draftId, {
      ...structuredClone(usedArticle),
      id: draftId,
      isDraft: true,
      isDraftPublished: false,
      originalArticleId: usedArticle.id,
      originalArticleVersion: usedArticle.version,
      createdAt: iso(at),
      updatedAt: iso(at),
      documentUrl: null,
      misc: { ...usedArticle.misc, refineIterationId: it.id },
    });
    change.draftArticleId = draftId;
  } else {
    const promptId = newId();
    const botId = conversation?.botId ?? '';
    const version = 1 + [...ws.promptVersions.values()].filter((p) => p.botId === botId).length;
    ws.promptVersions.set(promptId, { id: promptId, companyId: ws.id, botId, version, status: 'DRAFT', createdAt: iso(at) });
    change.draftPromptVersionId = promptId;
  }
  return change;
}

/** Brings an iteration's status up to date with the clock. */
export function advanceIteration(state: SandboxState, it: FixIteration): void {
  const plan = plans.get(it);
  if (!plan) return;
  const now = state.now();
  const stage = Math.floor((now - plan.startedMs) / plan.stepMs);
  const status = stage <= 0 ? 'queued' : stage === 1 ? 'generating_changes' : stage === 2 ? 'replaying' : plan.outcome;
  if (status === it.status) return;
  it.status = status;
  if (stage >= 1 && it.startedAt === null) it.startedAt = iso(plan.startedMs + plan.stepMs);
  if (stage >= 2 && it.backgroundJobId === null) it.backgroundJobId = `bg_refine_${it.id.slice(0, 8)}`;
  const at = plan.startedMs + Math.min(stage, 3) * plan.stepMs;
  it.updatedAt = iso(at);
  if (stage >= 3) {
    finish(it, plan, at);
    plans.delete(it);
  }
}

/** Wire form: spec fields plus `latestIteration` (first of `iterations`, newest first). */
export function sessionView(state: SandboxState, session: FixReviewSession): Record<string, unknown> {
  for (const it of session.iterations) advanceIteration(state, it);
  const latest = session.iterations[0];
  if (latest && latest.updatedAt > session.updatedAt) session.updatedAt = latest.updatedAt;
  const iterations = structuredClone(session.iterations);
  return { ...structuredClone(session), latestIteration: iterations[0] ?? null, iterations };
}

/**
 * Starts refining an answer: a new session, or a new iteration of the active one (the previous
 * latest iteration becomes `superseded`). Used by the sandbox control route.
 */
export function startRefine(state: SandboxState, input: { interactionId: string; eventId: string; outcome?: RefineOutcome; feedbackNote?: string; stepMs?: number }): Record<string, unknown> {
  const ws = [...state.workspaces.values()].find((w) => w.conversations.has(input.interactionId));
  if (!ws) throw notFound('Interaction not found');
  const { conversation, event, userEvent } = targetOf(state, ws, input.interactionId, input.eventId);
  const now = state.now();
  const at = iso(now);
  let session = activeSession(ws, conversation.id, event.id);
  if (!session) {
    session = {
      id: newId(),
      companyId: ws.id,
      interactionId: conversation.id,
      targetEventId: event.id,
      targetUserEventId: userEvent.id,
      status: 'active',
      publishedIterationId: null,
      publishedAt: null,
      closedAt: null,
      closedReason: null,
      createdAt: at,
      updatedAt: at,
      originalAnswerSnapshot: snapshot(conversation, event),
      iterations: [],
    };
    ws.refineSessions.set(session.id, session);
  }
  const previous = session.iterations[0];
  if (previous) {
    advanceIteration(state, previous);
    plans.delete(previous);
    previous.status = 'superseded';
    previous.updatedAt = at;
  }
  const iteration: FixIteration = {
    id: newId(),
    companyId: ws.id,
    sessionId: session.id,
    interactionId: conversation.id,
    targetEventId: event.id,
    previousIterationId: previous?.id ?? null,
    backgroundJobId: null,
    replayInteractionId: null,
    replayEventId: null,
    iterationNumber: (previous?.iterationNumber ?? 0) + 1,
    status: 'queued',
    feedbackNote: input.feedbackNote ?? event.feedback ?? 'Improve this answer.',
    summary: null,
    confidence: null,
    error: null,
    publishedAt: null,
    startedAt: null,
    completedAt: null,
    createdAt: at,
    updatedAt: at,
    oldAnswerSnapshot: snapshot(conversation, event),
    newAnswerSnapshot: null,
    changes: [],
  };
  session.iterations.unshift(iteration);
  session.updatedAt = at;
  const stepMs = input.stepMs ?? state.refineTimings?.stepMs ?? DEFAULT_STEP_MS;
  plans.set(iteration, { startedMs: now, stepMs: Math.max(1, stepMs), outcome: input.outcome ?? 'ready', ws });
  return sessionView(state, session);
}

export function isRefineOutcome(value: unknown): value is RefineOutcome {
  return REFINE_OUTCOMES.includes(value as RefineOutcome);
}

export function getRefineSession(req: RouteRequest) {
  const { conversation, event } = targetOf(req.state, req.workspace, req.params.id ?? '', req.params.eventId ?? '');
  const session = activeSession(req.workspace, conversation.id, event.id);
  return { body: session ? sessionView(req.state, session) : null };
}
