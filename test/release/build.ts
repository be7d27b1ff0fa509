/**
 * `npm run build` (and `prepare`): bundles the server into one minified ES module and builds its views,
 * dist/svc-mcp.js, which `bin` and the MCP Bundle run. Start then reads one file instead of
 * resolving hundreds of modules. What only some configurations use (the HTTP transport, the
 * sandbox, Redis and Bottleneck) is imported dynamically, so esbuild splits it into chunks under
 * dist/chunks/ that a start loads only when the configuration asks for it. Every package is bundled
 * but the mirror's native engine (EXTERNAL_PACKAGES): without node_modules the output runs, the
 * mirror aside.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { toolSchemasOf } from '../../src/engine/schema.js';
import { writeViews } from '../../src/views/build.js';
import { catalog } from '../../tools/index.js';
import { ROOT } from '../support/paths.js';

export const ENTRY_NAME = 'svc-mcp.js';

/**
 * What the bundle leaves out, loaded from node_modules at run time: the mirror's engine is native
 * code for one platform, so a bundle without it (the .mcpb) starts, and says the mirror is
 * unavailable when asked. These, and only these, are the package's `dependencies`: everything else
 * is inside the bundle, so an install pulls nothing more.
 */
export const EXTERNAL_PACKAGES = ['@duckdb/node-api'];

export interface BuildResult {
  /** Absolute path of the file to run. */
  entry: string;
  metafile: Metafile;
}

export interface BundleOptions {
  /** Output file name (without .js) by entry file. */
  entryPoints: Record<string, string>;
  outdir: string;
  /** Off for profiles, so that a CPU profile names functions and modules. */
  minify?: boolean;
  /** Identifiers replaced by constant expressions (esbuild `define`). */
  define?: Record<string, string>;
}

/**
 * The one set of esbuild settings the shipped server is built with. The bench's floors are built
 * with it too, so a comparison is between things made the same way.
 */
export async function bundle({ entryPoints, outdir, minify = true, define }: BundleOptions): Promise<Metafile> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    minify,
    sourcemap: 'linked',
    legalComments: 'none',
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
    define,
    external: EXTERNAL_PACKAGES,
    // The OAuth chunk's express decodes request bodies with iconv-lite and names content types from
    // mime-db: 628 KB of tables for the UTF-8 and Latin-1 bodies and the five types it ever handles.
    // Node's own decoders and those five entries take their place (src/oauth/bundled/).
    alias: { 'iconv-lite': path.join(ROOT, 'src/oauth/bundled/text-decoding.ts'), 'mime-db': path.join(ROOT, 'src/oauth/bundled/media-types.json') },
    // Bundled CommonJS dependencies (pino, ioredis, bottleneck) call require() for Node's own modules.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  });
  return result.metafile;
}

export async function buildCli(outdir = path.join(ROOT, 'dist'), options: { minify?: boolean } = {}): Promise<BuildResult> {
  // The catalog's JSON Schemas, converted here rather than at every start (src/engine/schema.ts).
  const schemas = Object.fromEntries(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, toolSchemasOf(tool)]));
  const define = { PREBUILT_TOOL_SCHEMAS: JSON.stringify(JSON.stringify(schemas)) };
  // Each workspace's mirror runs in a process of its own, started from dist/mirror-host.js (src/mirror/remote.ts).
  const metafile = await bundle({ entryPoints: { 'svc-mcp': path.join(ROOT, 'src/cli.ts'), 'mirror-host': path.join(ROOT, 'src/mirror/host.ts') }, outdir, minify: options.minify, define });
  return { entry: path.join(outdir, ENTRY_NAME), metafile };
}

/** What the package ships: the server bundle, and beside it the views it serves (dist/views). */
export async function buildPackage(outdir = path.join(ROOT, 'dist')): Promise<BuildResult> {
  const result = await buildCli(outdir);
  await writeViews(path.join(outdir, 'views'));
  return result;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(ROOT, 'test/release/build.ts')) {
  const { entry, metafile } = await buildPackage();
  const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  for (const [file, output] of outputs) process.stderr.write(`${path.relative(ROOT, path.resolve(ROOT, file))} ${kb(output.bytes)}\n`);
  process.stderr.write(`built ${path.relative(ROOT, entry)}\n`);
}
