import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPTIONS } from './config.js';
import { SERVER_NAME } from './meta.js';

/** `svc-mcp --help`: the commands, every option from the one table that drives them, and where this installation keeps its guides. */
export function helpText(): string {
  const lines = [
    'svc-mcp: MCP server for the Support-Agent Workspace API',
    '',
    'Usage:',
    '  svc-mcp [options]          serve the tools (stdio by default)',
    '  svc-mcp --sandbox          serve the tools against the embedded simulated workspace',
    '  svc-mcp sandbox [--port N] [--host H] [--sandbox-conversations N] [--sandbox-rate-limit N/Ts|off]',
    '                             run the simulated workspace API alone and print its URL and keys',
    '  svc-mcp --help | --version',
    '',
    'Options (each also read from the environment variable shown; a flag wins):',
  ];
  for (const option of OPTIONS) {
    const left = `  ${option.flag}${option.value ? ` ${option.value}` : ''}`;
    lines.push(`${left.padEnd(30)} ${option.env}`);
    lines.push(`${''.padEnd(32)}${option.help} Default: ${option.default ?? option.defaultText}.`);
  }
  const root = packageRoot();
  const guides = root ? GUIDES.map((guide) => path.join(root, guide)).filter((file) => existsSync(file)) : [];
  if (guides.length) lines.push('', 'Guides (in this installation):', ...guides.map((file) => `  ${file}`));
  return lines.join('\n');
}

/** The pages the README links, shipped with the package (its `files`). */
const GUIDES = ['README.md', 'src/CONFIGURATION.md', 'tools/README.md', 'src/oauth/HOSTING.md', 'src/sandbox/CHOICES.md'];

/** The folder of svc-mcp's own package.json above this module: the sources' (src/), the bundle's (dist/ or a chunk below it), an installation's. */
function packageRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++, dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === SERVER_NAME) return dir;
  }
  return undefined;
}
