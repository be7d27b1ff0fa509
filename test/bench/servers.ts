/**
 * What the bench's scripts (bench.ts, ab.ts, profile-http.ts) start alike: the floor, a minimal SDK
 * server bundled with the bin's esbuild settings, and either server against the sandbox, over stdio
 * or Streamable HTTP, with svc-mcp's own throttle lifted so that the servers are what is measured.
 */
import path from 'node:path';
import type { Sandbox } from '../../src/sandbox/index.js';
import { bundle } from '../release/build.js';
import { ROOT } from '../support/paths.js';
import { startHttpProcess, type HttpServerProcess } from './http-load.js';

export type ServerKind = 'svc-mcp' | 'minimal';

/** The call every timed figure makes: a page of 20 conversations, the route the floor forwards. */
export const BENCH_CALL = { name: 'list_conversations', arguments: { limit: 20 } };

const UNLIMITED = '1000000/60s';

type Upstream = Pick<Sandbox, 'url' | 'keys'>;

/** Bundles the floor (minimal-server.ts) into `outdir`; returns the file to run. */
export async function bundleFloor(outdir: string, minify = true): Promise<string> {
  await bundle({ entryPoints: { minimal: path.join(ROOT, 'test/bench/minimal-server.ts') }, outdir, minify });
  return path.join(outdir, 'minimal.js');
}

/** The environment of either server over stdio: one process, the upstream's admin key. */
export function stdioEnv(kind: ServerKind, upstream: Upstream): Record<string, string> {
  return kind === 'svc-mcp' ? { SVC_BASE_URL: upstream.url, SVC_API_KEY: upstream.keys.admin, SVC_RATE_LIMIT: UNLIMITED } : { MINIMAL_BASE_URL: upstream.url, MINIMAL_API_KEY: upstream.keys.admin };
}

/**
 * Either server over Streamable HTTP. Its clients bring the admin key; svc-mcp lets that one key
 * open `sessions` sessions (the default cap is 20), as for a team sharing a key.
 */
export function startHttpServer(
  kind: ServerKind,
  entry: string,
  upstream: Upstream,
  sessions: number,
  options: { env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<HttpServerProcess> {
  return kind === 'svc-mcp'
    ? startHttpProcess(
        entry,
        (port) => ['--transport', 'http', '--http-port', String(port)],
        { SVC_BASE_URL: upstream.url, SVC_RATE_LIMIT: UNLIMITED, SVC_MAX_SESSIONS_PER_KEY: String(sessions), ...options.env },
        options.nodeArgs,
      )
    : startHttpProcess(entry, (port) => ['--http', String(port)], { MINIMAL_BASE_URL: upstream.url, MINIMAL_API_KEY: upstream.keys.admin, ...options.env }, options.nodeArgs);
}
