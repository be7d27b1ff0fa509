import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SpentTokens } from '../engine/spent-tokens.js';

/**
 * The fleet's record of spent confirmation tokens: one `SET NX` per token, living until the
 * token's own expiry, so exactly one node sends it. Stored by digest: Redis never holds a usable
 * token. When Redis cannot answer, the spend fails and nothing is sent.
 */
export class RedisSpentTokens implements SpentTokens {
  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = Date.now,
  ) {}

  async spend(token: string, expiresAt: number): Promise<boolean> {
    const key = `svc-mcp:spent:${createHash('sha256').update(token).digest('hex')}`;
    const answer = await this.redis.set(key, '1', 'PX', Math.max(1, Math.ceil(expiresAt - this.now())), 'NX');
    return answer === 'OK';
  }
}
