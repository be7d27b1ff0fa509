/**
 * `npm run conformance`: the generic server scenarios of the MCP conformance suite
 * (@modelcontextprotocol/conformance, pinned) against `svc-mcp --sandbox --transport http`.
 * Uses the built server when dist/ exists (as users run it), else the sources through tsx.
 * Exits non-zero when a scenario fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ENTRY_NAME } from './build.js';
import { ROOT } from './paths.js';

export const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'prompts-list',
  'logging-set-level',
  'dns-rebinding-protection',
];

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function waitForHealth(base: string, timeoutMs = 20_000, exited?: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited?.()) throw new Error(`server for ${base} exited before it was healthy`);
    try {
      const response = await fetch(`${base}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server at ${base} not healthy within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main(): Promise<void> {
  const port = await freePort();
  const entry = path.join(ROOT, 'dist', ENTRY_NAME);
  const args = existsSync(entry) ? [entry] : ['--import', 'tsx', path.join(ROOT, 'src/cli.ts')];
  const server = spawn(process.execPath, [...args, '--sandbox', '--transport', 'http', '--http-port', String(port), '--log-level', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const failed: string[] = [];
  let exited = false;
  server.once('exit', () => {
    exited = true;
  });
  try {
    await waitForHealth(base, 20_000, () => exited);
    const cli = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
    for (const scenario of SCENARIOS) {
      const run = spawnSync(process.execPath, [cli, 'server', '--url', `${base}/mcp`, '--scenario', scenario], { cwd: ROOT, encoding: 'utf8' });
      const output = `${run.stdout}${run.stderr}`;
      const ok = run.status === 0 && /Passed: (\d+)\/\1, 0 failed/.test(output);
      process.stdout.write(`${ok ? 'PASS' : 'FAIL'} ${scenario}\n`);
      if (!ok) {
        failed.push(scenario);
        process.stdout.write(`${output}\n`);
      }
    }
  } finally {
    server.kill('SIGTERM');
  }
  process.stdout.write(`${SCENARIOS.length - failed.length}/${SCENARIOS.length} conformance scenarios passed\n`);
  if (failed.length) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(ROOT, 'test/support/conformance.ts')) {
  await main();
}
