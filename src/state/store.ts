import { createHash, randomBytes } from 'node:crypto';

/**
 * What must outlive one request, and sometimes the process: spent confirmation tokens, OAuth
 * registrations, grants and tokens. Three places hold it, chosen once by the runtime:
 * - memory, when nothing needs to survive (a random per-process secret makes every token die with it);
 * - files under SVC_STATE_DIR (`FileStateStore`), so one node keeps it across restarts;
 * - Redis with SVC_REDIS_URL (`RedisStateStore`), so every node of a fleet shares it.
 *
 * Records live in named spaces (`spent`, `oauth-client`, ...) under an id that is stored only as
 * its SHA-256, so neither a file name nor a Redis key ever holds a usable token. Every operation
 * is atomic across the processes sharing the store, and a write is durable before it returns.
 */
export interface StateStore {
  /** This store's name, 12 hex digits: a confirmation token carries it, and another store refuses the token (see engine/tokens.ts). */
  readonly id: string;
  /** Records `id` until `expiresAt` (epoch ms): true for the one caller that recorded it first, false while it stands. */
  claim(space: string, id: string, expiresAt: number): Promise<boolean>;
  /** Stores `value` under `id` until `expiresAt`, replacing what stood there. */
  put(space: string, id: string, value: string, expiresAt: number): Promise<void>;
  /** The value under `id`, unless absent or expired. */
  get(space: string, id: string): Promise<string | undefined>;
  /** Removes the value under `id` and returns it: exactly one of several concurrent callers gets it. */
  take(space: string, id: string): Promise<string | undefined>;
  delete(space: string, id: string): Promise<void>;
  close(): void;
}

/** The id as it is stored: its SHA-256 in hex. */
export function storedId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** Space names are ours, not callers': letters, digits and dashes, so they are safe as a folder and inside a key. */
export function checkSpace(space: string): string {
  if (!/^[a-z][a-z0-9-]{0,40}$/.test(space)) throw new Error(`internal: bad state space name ${JSON.stringify(space)}`);
  return space;
}

/** A new store's id. */
export function newStoreId(): string {
  return randomBytes(6).toString('hex');
}

/** One process's state, gone when it exits. */
export class MemoryStateStore implements StateStore {
  readonly id = newStoreId();
  private readonly records = new Map<string, { value: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async claim(space: string, id: string, expiresAt: number): Promise<boolean> {
    if (this.live(space, id)) return false;
    this.records.set(this.key(space, id), { value: '', expiresAt });
    return true;
  }

  async put(space: string, id: string, value: string, expiresAt: number): Promise<void> {
    this.records.set(this.key(space, id), { value, expiresAt });
  }

  async get(space: string, id: string): Promise<string | undefined> {
    return this.live(space, id)?.value;
  }

  async take(space: string, id: string): Promise<string | undefined> {
    const record = this.live(space, id);
    this.records.delete(this.key(space, id));
    return record?.value;
  }

  async delete(space: string, id: string): Promise<void> {
    this.records.delete(this.key(space, id));
  }

  close(): void {
    this.records.clear();
  }

  private key(space: string, id: string): string {
    return `${checkSpace(space)}:${storedId(id)}`;
  }

  private live(space: string, id: string) {
    const key = this.key(space, id);
    const record = this.records.get(key);
    if (record && record.expiresAt <= this.now()) {
      this.records.delete(key);
      return undefined;
    }
    // Expired records of other ids go as new ones come, so the map stays the size of what is live.
    if (!record && this.records.size > 0 && this.records.size % 256 === 0) this.sweep();
    return record;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, record] of this.records) if (record.expiresAt <= now) this.records.delete(key);
  }
}
