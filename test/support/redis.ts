import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './conformance.js';

export interface RedisServer {
  url: string;
  port: number;
  child: ChildProcess;
  /** Kills the server and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts a throwaway `redis-server` on a free loopback port (no persistence). Fails loudly when the
 * binary is missing: the Redis tests must never be skipped silently (CI installs the Debian
 * package redis-server).
 */
export async function startRedis(): Promise<RedisServer> {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) {
    throw new Error('redis-server is not installed: the Redis tests need it (apt-get install -y redis-server; .ci/run installs it)');
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => {
    exited = true;
    resolve();
  }));
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
