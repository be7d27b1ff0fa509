import { hashKey } from '../redaction/key-hash.js';

/** How long a refused write is remembered: the key's scopes are fixed when it is made, but a 403 may also have been about another workspace's data. */
const REMEMBERED_MS = 10 * 60_000;
/** Keys remembered at most, the oldest forgotten first. */
const MAX_KEYS = 10_000;

/**
 * What the API's answers have shown about a key's writes: the time of its last write refused with
 * 403 (the answer the spec gives a key without the write scope, and a request about another
 * workspace's data), unless a write with it was accepted since. No route tells a key's scopes, and
 * none is guessed: a key is taken to lack the write scope only once the API has said so. A write
 * with such a key is then refused before its preview, rather than previewed, approved by a person,
 * and refused by the API again.
 */
export class WriteRefusals {
  private readonly refusedAt = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  refused(apiKey: string): void {
    const keyHash = hashKey(apiKey);
    this.refusedAt.delete(keyHash);
    this.refusedAt.set(keyHash, this.now());
    if (this.refusedAt.size > MAX_KEYS) this.refusedAt.delete(this.refusedAt.keys().next().value!);
  }

  accepted(apiKey: string): void {
    this.refusedAt.delete(hashKey(apiKey));
  }

  /** When the key's last write was refused with 403, if that is recent and nothing was accepted since. */
  lastRefused(apiKey: string): number | undefined {
    const at = this.refusedAt.get(hashKey(apiKey));
    return at !== undefined && at > this.now() - REMEMBERED_MS ? at : undefined;
  }
}
