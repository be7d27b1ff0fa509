import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './network.js';

export interface RedisServer {
  url: string;
  port: number;
  child: ChildProcess;
  /** Kills the server and waits for it to exit. */
  stop(): Promise<void>;
}

export function redisInstalled(): boolean {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return !found.error && found.status === 0;
}

/**
 * Whether the Redis tests run: always in CI (which installs redis-server, so a missing binary
 * fails them loudly), and on a developer machine only when redis-server is installed, so that a
 * newcomer's `npm test` passes; the skip is announced, never silent.
 */
export function runRedisTests(): boolean {
  if (process.env.CI || redisInstalled()) return true;
  console.warn('Skipping the Redis tests: redis-server is not installed (apt-get install -y redis-server). CI always runs them.');
  return false;
}

/**
 * Starts a throwaway `redis-server` on a free loopback port (no persistence). Fails loudly when the
 * binary is missing (CI installs the Debian package redis-server).
 */
export async function startRedis(): Promise<RedisServer> {
  if (!redisInstalled()) {
    throw new Error('redis-server is not installed: the Redis tests need it (apt-get install -y redis-server; .ci/run installs it)');
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (exited || Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child,
    async stop() {
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
  };
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
