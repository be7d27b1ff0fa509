import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getMcpConfigForManifest, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { catalog } from '../../tools/index.js';
import { pack } from '../release/pack.js';
import { SHOWS_VIEWS } from '../views/client.js';
import { ROOT } from '../support/paths.js';

/**
 * CI only (`npm run test:pack`): rebuilds dist/ and packs. The bundle is unpacked outside the
 * repository and run from there with nothing but its own files.
 */
const work = mkdtempSync(path.join(os.tmpdir(), 'svc-mcpb-'));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('MCP Bundle', () => {
  it('packs a .mcpb that serves exactly the catalog from its own files, with the Sandbox setting alone', async () => {
    const started = Date.now();
    const bundle = await pack(path.join(work, 'svc-mcp.mcpb'));
    const packedMs = Date.now() - started;
    const unpacked = path.join(work, 'unpacked');
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js'), 'unpack', bundle, unpacked], { stdio: 'ignore' });

    // Started as Claude Desktop starts it: the manifest's command, with the Sandbox setting on and nothing else filled in.
    const manifest = JSON.parse(readFileSync(path.join(unpacked, 'manifest.json'), 'utf8')) as McpbManifestAny;
    const host = await getMcpConfigForManifest({ manifest, extensionPath: unpacked, systemDirs: {}, userConfig: { sandbox: true }, pathSeparator: path.sep });
    expect(host, 'the host would refuse to start the bundle: a required setting is missing').toBeDefined();
    expect(existsSync(path.join(unpacked, manifest.icon!)), 'the icon is in the bundle').toBe(true);
    const transport = new StdioClientTransport({
      command: host!.command === 'node' ? process.execPath : host!.command,
      args: host!.args,
      cwd: unpacked,
      env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', ...host!.env },
      stderr: 'pipe',
    });
    // Claude Desktop declares MCP Apps, so the bundle serves its views.
    const client = new Client({ name: 'bundle-test', version: '1.0.0' }, { capabilities: SHOWS_VIEWS });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      // The bundle carries no native engine: it runs with the workspace mirror off, and lists no tool that needs it; server_info is in every toolset.
      expect(host!.env?.SVC_MIRROR).toBe('off');
      const expected = [...catalog.flatMap((group) => group.tools.filter((tool) => !tool.needsMirror).map((tool) => tool.name)), 'server_info'].sort();
      expect(tools.map((tool) => tool.name).sort()).toEqual(expected);
      const stats = (await client.callTool({ name: 'conversation_stats', arguments: { since: '30d' } })) as CallToolResult;
      expect(stats.isError, JSON.stringify(stats.content)).toBeFalsy();
      const { contents } = await client.readResource({ uri: 'ui://svc-mcp/stats' });
      expect(contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app', text: expect.stringContaining('<html') });
    } finally {
      await client.close();
    }
    console.log(`pack ${packedMs} ms, pack + unpack + first tools/list ${Date.now() - started} ms`);
  });
});
