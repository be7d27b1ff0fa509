import { afterAll, beforeAll, describe } from 'vitest';
import { Redis } from 'ioredis';
import { RedisStateStore } from '../../src/fleet/redis-state.js';
import { runRedisTests, startRedis, type RedisServer } from '../support/redis.js';
import { describeStateStore } from '../support/state-store-contract.js';

/** Redis expires a record on its own clock: a test waits this much past an expiry before it reads. */
const EXPIRY_MARGIN_MS = 15;

describe.runIf(runRedisTests())('the state store on Redis', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  describeStateStore('Redis (four nodes, each its own connection, as four processes would have)', async () => {
    const connections = Array.from({ length: 4 }, () => new Redis(redis.url));
    await connections[0].flushall();
    return {
      stores: connections.map((connection) => new RedisStateStore(connection)),
      now: Date.now,
      advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms + EXPIRY_MARGIN_MS)),
      close: async () => {
        for (const connection of connections) connection.disconnect();
      },
    };
  });
});
