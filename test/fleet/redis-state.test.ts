import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisStateStore } from '../../src/fleet/redis-state.js';
import { runRedisTests, startRedis, type RedisServer } from '../support/redis.js';

describe.runIf(runRedisTests())('the state store on Redis', () => {
  let redis: RedisServer;
  /** Four nodes: each its own connection, as four processes would have. */
  let connections: Redis[];
  let nodes: RedisStateStore[];

  beforeAll(async () => {
    redis = await startRedis();
    connections = Array.from({ length: 4 }, () => new Redis(redis.url));
    nodes = connections.map((connection) => new RedisStateStore(connection));
  });

  afterAll(async () => {
    for (const connection of connections ?? []) connection.disconnect();
    await redis?.stop();
  });

  it('of many nodes claiming one id at once, exactly one wins, and the claim stands until its expiry', async () => {
    const until = Date.now() + 60_000;
    for (let round = 0; round < 20; round++) {
      const claims = await Promise.all(Array.from({ length: 12 }, (_, index) => nodes[index % nodes.length].claim('spent', `race-${round}`, until)));
      expect(claims.filter(Boolean)).toHaveLength(1);
    }
    expect(await nodes[0].claim('spent', 'short', Date.now() + 50)).toBe(true);
    expect(await nodes[1].claim('spent', 'short', Date.now() + 50)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await nodes[1].claim('spent', 'short', Date.now() + 60_000)).toBe(true);
  });

  it('of many nodes taking one value at once, exactly one gets it', async () => {
    const until = Date.now() + 60_000;
    for (let round = 0; round < 20; round++) {
      await nodes[0].put('grant', `code-${round}`, `value-${round}`, until);
      const taken = await Promise.all(Array.from({ length: 12 }, (_, index) => nodes[index % nodes.length].take('grant', `code-${round}`)));
      expect(taken.filter((value) => value !== undefined)).toEqual([`value-${round}`]);
    }
    expect(await nodes[2].get('grant', 'code-0')).toBeUndefined();
  });
});
