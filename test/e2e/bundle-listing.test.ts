/**
 * The bundle lists the catalog from JSON Schemas converted when it was built (src/engine/schema.ts),
 * the sources convert them as they go: the built `svc-mcp` must list exactly the committed snapshot.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, it } from 'vitest';
import { svcMcpCommand } from '../support/built.js';
import { ROOT, SNAPSHOT_PATH } from '../support/paths.js';

it('the built svc-mcp lists the tools/list snapshot, prebuilt schemas and all', { timeout: 60_000 }, async () => {
  const [entry] = await svcMcpCommand();
  const client = new Client({ name: 'bundle-listing', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry, '--sandbox'], cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stderr: 'ignore' }));
  try {
    const { tools } = await client.listTools();
    const listed = JSON.parse(JSON.stringify([...tools].sort((a, b) => a.name.localeCompare(b.name))));
    expect(listed).toEqual(JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8')));
  } finally {
    await client.close();
  }
});
