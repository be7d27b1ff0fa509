/**
 * What the attacks on the shipped binary share: the standalone sandbox as `svc-mcp sandbox` runs it
 * (read from what it prints, steered through its /__sandbox/ control routes), and calls that return
 * what a client sees. Every process here is dist/svc-mcp.js (SVC_MCP_TEST_SHIPPED, set by this
 * suite's configuration).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Fault, RecordedRequest } from '../../src/sandbox/index.js';
import { svcMcpCommand } from '../support/built.js';
import { useStarted } from '../support/fixture.js';
import { caller } from '../support/harness.js';
import { ROOT } from '../support/paths.js';

export interface StandaloneSandbox {
  url: string;
  /** By the names it prints: admin, readOnly, otherWorkspace, revoked. */
  keys: Record<string, string>;
  /** What it printed on start. */
  banner: string;
  faults(list: Fault[]): Promise<void>;
  clearFaults(): Promise<void>;
  requests(): Promise<RecordedRequest[]>;
  clearRequests(): Promise<void>;
  setRateLimit(limit: number, windowMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** `svc-mcp sandbox --port 0`, read from what it prints (design §6: its URL, one line per key). */
export async function startStandaloneSandbox(): Promise<StandaloneSandbox> {
  const child = spawn(process.execPath, [...(await svcMcpCommand()), 'sandbox', '--port', '0'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let banner = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc-mcp sandbox printed no paste line within 20 s:\n${banner}\n${stderr}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      banner += chunk.toString();
      if (/SVC_BASE_URL=\S+ SVC_API_KEY=\S+/.test(banner)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => reject(new Error(`svc-mcp sandbox exited:\n${banner}\n${stderr}`)));
  });
  const url = /listening on (http:\/\/\S+)/.exec(banner)?.[1];
  if (!url) throw new Error(`no "listening on <url>" line in:\n${banner}`);
  const keys = Object.fromEntries([...banner.matchAll(/^\s+(\w+)\s+(svc_\w+)\s/gm)].map((match) => [match[1], match[2]]));
  const control = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${url}/__sandbox/${route}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} /__sandbox/${route}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<unknown>;
  };
  return {
    url,
    keys,
    banner,
    faults: async (list) => void (await control('POST', 'faults', list)),
    clearFaults: async () => void (await control('DELETE', 'faults')),
    requests: async () => (await control('GET', 'requests')) as RecordedRequest[],
    clearRequests: async () => void (await control('DELETE', 'requests')),
    setRateLimit: async (limit, windowMs) => void (await control('POST', 'rate-limit', { limit, windowMs })),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The standalone sandbox for a describe block (or a file), its budget lifted so that no attack waits on it. */
export function useStandaloneSandbox(): StandaloneSandbox {
  return useStarted(
    async () => {
      const sandbox = await startStandaloneSandbox();
      await sandbox.setRateLimit(1_000_000, 60_000);
      return sandbox;
    },
    (sandbox) => sandbox.stop(),
  );
}

/** A tool call that a hung process fails within 30 s, well inside the test's own time limit. */
export function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return caller(client)(name, args, { timeout: 30_000 });
}

export function confirmTokenOf(result: CallToolResult): string {
  const token = (result.structuredContent as { confirmToken?: unknown } | undefined)?.confirmToken;
  if (typeof token !== 'string') throw new Error(`no confirmToken in ${JSON.stringify(result).slice(0, 500)}`);
  return token;
}

/** Environment for a server pointed at the standalone sandbox, with a budget that never slows an attack. */
export function upstreamEnv(sandbox: StandaloneSandbox, extra: Record<string, string> = {}): Record<string, string> {
  return { SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin, SVC_RATE_LIMIT: '1000000/60s', ...extra };
}
