/** Agents: GET /v2/bots/public. */
import type { RouteRequest } from '../router.js';

export function listAgents({ workspace }: RouteRequest) {
  return {
    body: [...workspace.bots.values()]
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((b) => ({ id: b.id, name: b.name, description: b.description, channels: [...b.channels], createdAt: b.createdAt, isActive: b.isActive })),
  };
}
