/** Replay conversations: one record by id; 400 for an id that is not a UUID, 404 when absent from the workspace (spec). */
import type { RouteRequest } from '../router.js';
import { requireInWorkspace } from '../state.js';
import { uuidParam } from '../validate.js';

export function getReplay(req: RouteRequest) {
  const replay = requireInWorkspace(req.state, req.workspace, 'replays', uuidParam(req.params, 'id'), 'Replay not found');
  return { body: structuredClone(replay) };
}
