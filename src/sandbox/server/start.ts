/**
 * The sandbox HTTP server: node:http on loopback, serving the routes of dispatch.ts over the state
 * of context.ts. It listens first, then seeds (data steps point at the sandbox's own URL).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Fault, Sandbox, SandboxKey, SandboxOptions } from '../handle.js';
import type { RateScope } from '../ratelimit.js';
import { SEED } from '../seed-ids.js';
import { seedState } from '../seed.js';
import { createContext, type ServerContext } from './context.js';
import { dispatch } from './dispatch.js';

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const ctx = createContext(options);
  const server: Server = createServer((req, res) => dispatch(ctx, req, res));
  server.keepAliveTimeout = 5_000;
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  ctx.state.baseUrl = `http://${urlHost}:${addr.port}`;
  seedState(ctx.state, options.conversations);
  return handleOf(ctx, async () => {
    ctx.faults.cancelDelays();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
    });
  });
}

function handleOf(ctx: ServerContext, close: () => Promise<void>): Sandbox {
  const { state, requests, limiter, faults } = ctx;
  return {
    url: state.baseUrl,
    keys: ctx.keys,
    requests,
    state,
    seed: SEED,
    clearRequests: () => {
      requests.length = 0;
    },
    setRateLimit: (limit: number, windowMs: number, scope?: RateScope) => limiter.reset(limit, windowMs, scope),
    injectFaults: (list: Fault[]) => faults.add(list),
    clearFaults: () => faults.clear(),
    keyRecords: (): SandboxKey[] => state.keys.map((k) => ({ name: k.name, key: k.key, scopes: [...k.scopes], workspaceId: k.workspaceId, revoked: k.revoked })),
    lastInternalError: () => ctx.lastInternalError,
    close,
  };
}
