/**
 * Run from the sources (tests, the demo), the host is bundled once per process with esbuild, so
 * that each workspace's host starts as plain Node, as it does from dist/, instead of through a
 * TypeScript loader. It is written inside node_modules, where its import of the engine resolves.
 */
import { renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export async function buildHost(): Promise<string> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const file = path.join(root, 'node_modules/.cache/svc-mcp/mirror-host.js');
  // Written aside, then renamed: processes building at once each leave a whole file.
  const written = `${file}.${process.pid}.tmp`;
  await build({
    entryPoints: [path.join(root, 'src/mirror/host.ts')],
    outfile: written,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external: ['@duckdb/node-api'],
    logLevel: 'warning',
  });
  renameSync(written, file);
  return file;
}
