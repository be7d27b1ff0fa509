import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCli, ENTRY_NAME } from '../release/build.js';
import { ROOT } from './paths.js';

/** One cache per checkout: a checkout clears only its own stale builds, never another's that a test there is running. */
const CACHE = path.join(os.tmpdir(), 'svc-mcp-test-builds', createHash('sha256').update(ROOT).digest('hex').slice(0, 8));
const SOURCES = ['src', 'tools', 'package.json', 'test/release/build.ts'];

let built: Promise<string> | undefined;

/** Set by the suites that test the shipped binary (`npm run test:guarantees`): they run dist/ as built by `npm run build`. */
const SHIPPED_BINARY_VARIABLE = 'SVC_MCP_TEST_SHIPPED';
const SHIPPED_ENTRY = path.join(ROOT, 'dist', ENTRY_NAME);

/**
 * The command line that starts `svc-mcp` as users run it: node on the bundle that `npm run build`
 * makes. It is built into a temporary folder (never dist/) named after the sources' sizes and
 * times, so the test workers of a run, and later runs on unchanged sources, share one build.
 * Under SVC_MCP_TEST_SHIPPED=1 it is dist/svc-mcp.js itself, built by nobody but `npm run build`.
 */
export async function svcMcpCommand(): Promise<string[]> {
  if (process.env[SHIPPED_BINARY_VARIABLE] === '1') return [shippedEntry()];
  built ??= buildOnce();
  return [await built];
}

/** dist/svc-mcp.js, which must exist: these suites test what `npm run build` shipped, and build nothing. */
export function shippedEntry(): string {
  if (!existsSync(SHIPPED_ENTRY)) throw new Error(`${path.relative(ROOT, SHIPPED_ENTRY)} is missing: run \`npm run build\` first (CI builds before it tests)`);
  return SHIPPED_ENTRY;
}

async function buildOnce(): Promise<string> {
  const folder = path.join(CACHE, sourcesFingerprint());
  const entry = path.join(folder, ENTRY_NAME);
  if (existsSync(entry)) return entry;
  mkdirSync(CACHE, { recursive: true });
  for (const stale of readdirSync(CACHE)) {
    if (!stale.includes('.')) rmSync(path.join(CACHE, stale), { recursive: true, force: true });
  }
  // Built aside, then moved in one step: a worker racing this one uses whichever build lands first.
  const staging = `${folder}.${process.pid}.${Date.now()}`;
  await buildCli(staging);
  // The mirror's native engine is not in the bundle: it loads from node_modules, as in an installed package.
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(staging, 'node_modules'), 'dir');
  try {
    renameSync(staging, folder);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  return entry;
}

function sourcesFingerprint(): string {
  const hash = createHash('sha256');
  const visit = (file: string) => {
    const stat = statSync(file);
    if (stat.isDirectory()) {
      for (const name of readdirSync(file).sort()) visit(path.join(file, name));
      return;
    }
    hash.update(`${path.relative(ROOT, file)}:${stat.size}:${stat.mtimeMs}\n`);
  };
  for (const source of SOURCES) visit(path.join(ROOT, source));
  return hash.digest('hex').slice(0, 16);
}
