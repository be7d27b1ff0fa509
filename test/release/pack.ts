/**
 * `npm run pack`: builds the MCP Bundle (`.mcpb`) that Claude Desktop installs in one click.
 * The bundle runs with only its own files: dist (the esbuild bundle, every dependency inside it),
 * manifest.json and package.json. No node_modules is needed, so packing needs no registry.
 *
 *   npm run pack                 -> ./svc-mcp-<version>.mcpb
 *   npm run pack -- --out FILE   -> FILE
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildPackage } from './build.js';
import { ROOT } from '../support/paths.js';

function run(command: string, args: string[], cwd: string): void {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
}

export async function pack(out?: string): Promise<string> {
  const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const output = path.resolve(out ?? path.join(ROOT, `svc-mcp-${version}.mcpb`));
  const stage = path.join(ROOT, '.tmp', 'mcpb-stage');

  await buildPackage();

  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  cpSync(path.join(ROOT, 'dist'), path.join(stage, 'dist'), { recursive: true, filter: (source) => !source.endsWith('.map') });
  for (const file of ['manifest.json', 'package.json', 'README.md', 'LICENSE', 'src/icon.png']) {
    if (existsSync(path.join(ROOT, file))) cpSync(path.join(ROOT, file), path.join(stage, file));
  }

  mkdirSync(path.dirname(output), { recursive: true });
  rmSync(output, { force: true });
  run(process.execPath, [path.join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js'), 'pack', stage, output], ROOT);
  if (!existsSync(output)) throw new Error(`mcpb pack did not write ${output}`);
  rmSync(stage, { recursive: true, force: true });
  return output;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(ROOT, 'test/release/pack.ts')) {
  const index = process.argv.indexOf('--out');
  const file = await pack(index > 0 ? process.argv[index + 1] : undefined);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file) || file} (${(statSync(file).size / 1024 / 1024).toFixed(1)} MB)\n`);
}
