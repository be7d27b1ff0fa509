import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { checkSpace, storedId, type StateStore } from '../state/store.js';

const REDIS_STORE_ID = createHash('sha256').update('svc-mcp redis').digest('hex').slice(0, 12);

/**
 * The fleet's state on one Redis: `svc-mcp:<space>:<sha256 of the id>`, living until its record's
 * expiry. `claim` is `SET NX`, `take` is `GETDEL` (Redis 6.2+), so exactly one node wins either.
 * When Redis cannot answer, the operation fails: a caller refuses rather than act on state it
 * could not check.
 */
export class RedisStateStore implements StateStore {
  /** The same on every node: a token any node of the fleet issued is spent in this Redis wherever it is sent. */
  readonly id = REDIS_STORE_ID;

  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = Date.now,
  ) {}

  async claim(space: string, id: string, expiresAt: number): Promise<boolean> {
    return (await this.redis.set(this.key(space, id), '', 'PX', this.ttl(expiresAt), 'NX')) === 'OK';
  }

  async put(space: string, id: string, value: string, expiresAt: number): Promise<void> {
    await this.redis.set(this.key(space, id), value, 'PX', this.ttl(expiresAt));
  }

  async get(space: string, id: string): Promise<string | undefined> {
    return (await this.redis.get(this.key(space, id))) ?? undefined;
  }

  async take(space: string, id: string): Promise<string | undefined> {
    return (await this.redis.getdel(this.key(space, id))) ?? undefined;
  }

  async delete(space: string, id: string): Promise<void> {
    await this.redis.del(this.key(space, id));
  }

  /** The connection belongs to the runtime, which closes it. */
  close(): void {}

  private key(space: string, id: string): string {
    return `svc-mcp:${checkSpace(space)}:${storedId(id)}`;
  }

  private ttl(expiresAt: number): number {
    return Math.max(1, Math.ceil(expiresAt - this.now()));
  }
}
