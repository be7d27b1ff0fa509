/** Replay conversations: one record by id; 400 for an id that is not a UUID, 404 when absent from the workspace (spec). */
import { defineRoutes } from '../router.js';
import { requireInWorkspace } from '../state.js';
import { uuidParam } from '../validate.js';

export const routes = defineRoutes([
  {
    method: 'GET', path: '/v2/replays/{id}/public', scope: 'read',
    handler: (req) => {
      const replay = requireInWorkspace(req.state, req.workspace, 'replays', uuidParam(req.params, 'id'), 'Replay not found');
      return { body: structuredClone(replay) };
    },
  },
]);
