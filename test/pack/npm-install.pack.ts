import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { catalog } from '../../tools/index.js';
import { ROOT } from '../support/paths.js';

/**
 * The package way, as a user takes it from a fresh clone: `npm pack` (which builds through `prepare`),
 * then `npm install -g` of the tarball into a temporary prefix, then the installed `svc-mcp` binary.
 * Slow (builds, installs production dependencies from the registry): CI only, through `npm run test:pack`.
 */
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const work = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-install-'));
const quietNpm = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

describe('npm package', () => {
  it('packs, installs globally and answers tools/list with --sandbox', async () => {
    const started = Date.now();
    const packed = JSON.parse(execFileSync(NPM, ['pack', '--json', '--pack-destination', work], { cwd: ROOT, env: quietNpm, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })) as PackResult[];
    const { filename, files } = packed[0];
    const names = files.map((file) => file.path);
    const { bin } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(names).toEqual(expect.arrayContaining([path.posix.normalize(bin['svc-mcp']), 'package.json', 'LICENSE', 'README.md']));
    // Every page and picture the README links is in the package, so the installed README links nothing missing.
    const linked = [...readFileSync(path.join(ROOT, 'README.md'), 'utf8').matchAll(/\]\(((?!https?:|#)[^)\s]+)\)/g)].map((match) => match[1]);
    expect(linked.length).toBeGreaterThan(5);
    expect(names).toEqual(expect.arrayContaining(linked));
    expect(names.filter((name) => name.endsWith('.map'))).toEqual([]);
    const packedMs = Date.now() - started;

    const prefix = path.join(work, 'prefix');
    execFileSync(NPM, ['install', '--global', '--prefix', prefix, '--loglevel=error', path.join(work, filename)], { env: quietNpm, stdio: ['ignore', 'inherit', 'inherit'] });
    const installed = process.platform === 'win32' ? path.join(prefix, 'svc-mcp.cmd') : path.join(prefix, 'bin', 'svc-mcp');
    expect(existsSync(installed)).toBe(true);
    // --help points an installed user at guides that exist in the installation, the hosting guide among them.
    const help = execFileSync(installed, ['--help'], { encoding: 'utf8' });
    const guides =
      help
        .split('Guides (in this installation):\n')[1]
        ?.split('\n')
        .map((line) => line.trim())
        .filter(Boolean) ?? [];
    expect(guides.some((guide) => guide.endsWith(path.join('src', 'oauth', 'HOSTING.md')))).toBe(true);
    for (const guide of guides) expect(existsSync(guide), guide).toBe(true);
    const installedAt = Date.now();

    // Outside the repository, with a bare environment: nothing but the installed package is found.
    const transport = new StdioClientTransport({
      command: installed,
      args: ['--sandbox'],
      cwd: work,
      env: { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, SVC_LOG_LEVEL: 'warn' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'npm-install-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      // Every catalog tool, and server_info, which every toolset lists.
      const expected = [...catalog.flatMap((group) => group.tools.map((tool) => tool.name)), 'server_info'].sort();
      expect(tools.map((tool) => tool.name).sort()).toEqual(expected);
      // The mirror's native engine loads from the installed package's own dependencies.
      const synced = (await client.callTool({ name: 'sync_workspace', arguments: { since: '30d' } })) as CallToolResult;
      expect(synced.isError, JSON.stringify(synced.content)).toBeFalsy();
      expect((synced.structuredContent as { conversations: number }).conversations).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    console.log(`npm pack ${packedMs} ms, install ${installedAt - started - packedMs} ms, first tools/list ${Date.now() - installedAt} ms`);
  }, 300_000);
});
