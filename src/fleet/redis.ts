import { Redis } from 'ioredis';
import type { Logger } from '../log.js';

/**
 * A Redis connection for a fleet's shared state (the rate budget; tasks and spent confirmation
 * tokens). A command fails fast while Redis is away (one retry), so a caller reports an error or
 * falls back rather than hanging or acting on state it could not check. Errors are logged at most
 * every 10 s, as their message only: an ioredis error can carry the connection options, which may
 * hold a password. Nothing is logged while `quiet` says so (the owner is stopping).
 */
export function connectRedis(url: string, logger: Logger, purpose: string, quiet = () => false): { client: Redis; logError: (error: Error) => void } {
  const client = new Redis(url, {
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * times, 2000),
  });
  let lastErrorLog = 0;
  const logError = (error: Error) => {
    if (quiet() || Date.now() - lastErrorLog < 10_000) return;
    lastErrorLog = Date.now();
    logger.warn({ error: error?.message }, `Redis error (${purpose})`);
  };
  client.on('error', logError);
  return { client, logError };
}
