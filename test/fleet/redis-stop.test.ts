import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBudgets } from '../../src/fleet/redis-budgets.js';
import { createLogger } from '../../src/log.js';
import { runRedisTests, startRedis, type RedisServer } from '../support/redis.js';

/** How late the subscriber connection's answers arrive once `slow` is set: a loaded machine, made certain. */
const SUBSCRIBER_DELAY_MS = 300;

/**
 * A TCP proxy to Redis that holds back the answers of the connection that subscribes (Bottleneck's
 * subscriber) while `slow` is set; every other connection passes straight through.
 */
async function subscriberDelayingProxy(redisPort: number): Promise<{ url: string; slow: boolean; close(): void }> {
  const sockets = new Set<net.Socket>();
  const proxy = {
    url: '',
    slow: false,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(redisPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let subscriber = false;
    client.on('data', (chunk) => {
      subscriber ||= /subscribe/i.test(chunk.toString('latin1'));
      upstream.write(chunk);
    });
    // Held back, and so is the end: Redis closes a connection right after answering QUIT.
    const later = (action: () => void) => (subscriber && proxy.slow ? setTimeout(action, SUBSCRIBER_DELAY_MS) : action());
    upstream.on('data', (chunk) => later(() => client.destroyed || client.write(chunk)));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', () => later(end)).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return proxy;
}

describe.runIf(runRedisTests())('a node stopping its shared rate budget', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('leaves no rejection unhandled while the unsubscribes Bottleneck sends on removal are still unanswered', async () => {
    const proxy = await subscriberDelayingProxy(redis.port);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const budgets = new RedisBudgets(proxy.url, createLogger('silent'));
      await budgets.start();
      const limiter = budgets.limiter({ limit: 5, windowMs: 1000 }, `stop-${process.pid}`);
      await limiter.acquire();
      proxy.slow = true;
      await limiter.stop();
      await budgets.stop();
      await new Promise((resolve) => setTimeout(resolve, 2 * SUBSCRIBER_DELAY_MS));
      expect(unhandled.map(String)).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      proxy.close();
    }
  });
});
