/** Agents: GET /v2/bots/public. */
import { defineRoutes } from '../router.js';

export const routes = defineRoutes([
  {
    method: 'GET',
    path: '/v2/bots/public',
    scope: 'read',
    handler: ({ workspace }) => ({
      body: [...workspace.bots.values()]
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
        .map((b) => ({ id: b.id, name: b.name, description: b.description, channels: [...b.channels], createdAt: b.createdAt, isActive: b.isActive })),
    }),
  },
]);
