import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCli } from './build.js';

let built: Promise<string> | undefined;

/**
 * The command line that starts `svc-mcp` as users run it: node on the bundle that `npm run build`
 * makes, built once per test worker into a temporary folder (never dist/), so spawned tests start
 * in a fraction of the time the TypeScript sources take through tsx.
 */
export async function svcMcpCommand(): Promise<string[]> {
  built ??= (async () => {
    const outdir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-build-'));
    process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
    return (await buildCli(outdir)).entry;
  })();
  return [await built];
}
