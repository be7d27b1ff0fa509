/**
 * Sandbox-only control routes of the agent-configuration and quality groups (loopback, no auth,
 * not recorded; dispatched from server/control.ts):
 *   POST /__sandbox/refine {interactionId, eventId, outcome?, feedbackNote?, stepMs?}
 *     starts refining an answer (new session or new iteration); returns the session.
 *   GET  /__sandbox/test-set-runs/{runId}
 *     a test-set run brought up to date (the public API has no documented route to read a run).
 */
import { HttpError, errorBody } from '../errors.js';
import type { SandboxState } from '../state.js';
import { isPlainObject } from '../validate.js';
import { isRefineOutcome, startRefine } from './refine.js';
import { runView } from './testing.js';

export function qualityControlRoutes(state: SandboxState, method: string, path: string, body: unknown): { status: number; body: unknown } | undefined {
  try {
    if (method === 'POST' && path === '/__sandbox/refine') {
      const b = isPlainObject(body) ? body : {};
      const problems: string[] = [];
      if (typeof b.interactionId !== 'string') problems.push('interactionId must be a string');
      if (typeof b.eventId !== 'string') problems.push('eventId must be a string');
      if (b.outcome !== undefined && !isRefineOutcome(b.outcome)) problems.push('outcome must be one of ready, no_change, failed');
      if (b.stepMs !== undefined && (typeof b.stepMs !== 'number' || b.stepMs <= 0)) problems.push('stepMs must be a positive number');
      if (b.feedbackNote !== undefined && typeof b.feedbackNote !== 'string') problems.push('feedbackNote must be a string');
      if (problems.length) return { status: 400, body: errorBody(400, problems) };
      return {
        status: 201,
        body: startRefine(state, {
          interactionId: b.interactionId as string,
          eventId: b.eventId as string,
          outcome: b.outcome as never,
          feedbackNote: b.feedbackNote as string | undefined,
          stepMs: b.stepMs as number | undefined,
        }),
      };
    }
    const m = /^\/__sandbox\/test-set-runs\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const id = decodeURIComponent(m[1]);
      for (const ws of state.workspaces.values()) {
        const run = ws.testSetRuns.get(id);
        if (run) return { status: 200, body: runView(state, run) };
      }
      return { status: 404, body: errorBody(404, 'Test-set run not found') };
    }
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, body: error.toBody() };
    throw error;
  }
  return undefined;
}
