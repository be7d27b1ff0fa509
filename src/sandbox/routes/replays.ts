/** Replay conversations: one record by id; 400 for an id that is not a UUID, 404 when absent from the workspace (spec). */
import { badRequest, notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { defineRoutes } from '../router.js';
import { findInWorkspace } from '../state.js';

export const routes = defineRoutes([
  {
    method: 'GET', path: '/v2/replays/{id}/public', scope: 'read',
    handler: (req) => {
      if (!isUuid(req.params.id)) throw badRequest(['id must be a UUID']);
      const replay = findInWorkspace(req.state, req.workspace, 'replays', req.params.id ?? '');
      if (!replay) throw notFound('Replay not found');
      return { body: structuredClone(replay) };
    },
  },
]);
