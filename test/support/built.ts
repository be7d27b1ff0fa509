import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCli, ENTRY_NAME } from './build.js';
import { ROOT } from './paths.js';

const CACHE = path.join(os.tmpdir(), 'svc-mcp-test-builds');
const SOURCES = ['src', 'tools', 'package.json', 'test/support/build.ts'];

let built: Promise<string> | undefined;

/**
 * The command line that starts `svc-mcp` as users run it: node on the bundle that `npm run build`
 * makes. It is built into a temporary folder (never dist/) named after the sources' sizes and
 * times, so the test workers of a run, and later runs on unchanged sources, share one build.
 */
export async function svcMcpCommand(): Promise<string[]> {
  built ??= buildOnce();
  return [await built];
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
