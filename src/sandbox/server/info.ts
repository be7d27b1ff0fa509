/** `GET /__sandbox/info`: what a script needs to use this run (contract, design §6). */
import { SEED } from '../seed-ids.js';
import type { ServerContext } from './context.js';

export function sandboxInfo(ctx: ServerContext) {
  return {
    url: ctx.state.baseUrl,
    keys: ctx.keys,
    keyRecords: ctx.state.keys.map((k) => ({
      name: k.name,
      prefix: k.prefix,
      scopes: k.scopes,
      workspaceId: k.workspaceId,
      revoked: k.revoked,
      createdBy: k.createdBy,
      created: k.created,
      lastUsed: k.lastUsed,
    })),
    rateLimit: ctx.limiter.describe(),
    generatedConversations: ctx.generatedConversations,
    seed: SEED,
  };
}
