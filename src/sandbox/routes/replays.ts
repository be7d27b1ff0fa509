/** Replay conversations: one record by id; 404 when absent from the workspace (spec). */
import { notFound } from '../errors.js';
import { defineRoutes } from '../router.js';
import { findInWorkspace } from '../state.js';

export const routes = defineRoutes([
  {
    method: 'GET', path: '/v2/replays/{id}/public', scope: 'read',
    handler: (req) => {
      const replay = findInWorkspace(req.state, req.workspace, 'replays', req.params.id ?? '');
      if (!replay) throw notFound('Replay not found');
      return { body: structuredClone(replay) };
    },
  },
]);
