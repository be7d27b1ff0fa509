import { Redis } from 'ioredis';
import type { Logger } from '../log.js';

/**
 * The connection that holds a fleet's shared state besides the rate budget: tasks and spent
 * confirmation tokens. A command fails fast while Redis is away (one retry), so a caller reports
 * an error rather than hanging or acting on state it could not check.
 */
export function connectFleetRedis(url: string, logger: Logger): Redis {
  const client = new Redis(url, {
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * times, 2000),
  });
  let lastErrorLog = 0;
  client.on('error', (error: Error) => {
    if (Date.now() - lastErrorLog < 10_000) return;
    lastErrorLog = Date.now();
    // The message only: an ioredis error can carry the connection options, which may hold a password.
    logger.warn({ error: error?.message }, 'Redis error (tasks, confirmation tokens)');
  });
  return client;
}
