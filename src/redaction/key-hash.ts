import { createHash } from 'node:crypto';

/**
 * Hashes of the keys seen last: every HTTP request names its key's hash (credentials, log lines),
 * and a hash costs a few microseconds and several objects, the memo one lookup. Bounded like the
 * key redactions (redaction.ts), so a stream of made-up keys cannot grow it.
 */
const recentHashes = new Map<string, string>();
const RECENT_HASHES = 64;

export function hashKey(apiKey: string): string {
  let hash = recentHashes.get(apiKey);
  if (hash !== undefined) return hash;
  hash = createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
  recentHashes.set(apiKey, hash);
  if (recentHashes.size > RECENT_HASHES) recentHashes.delete(recentHashes.keys().next().value!);
  return hash;
}
