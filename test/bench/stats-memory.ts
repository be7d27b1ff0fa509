/**
 * `tsx test/bench/stats-memory.ts [N ...]`: what conversation_stats and a file export keep in
 * memory while they read N conversations, for each N given (default 10000 and 100000).
 *
 * The sandbox runs in this process, filled through `sandbox.state` with N conversations over the
 * last 365 days across its agents, each with a question and a rated answer. svc-mcp runs from
 * sources in a child process over stdio, with the bench's GC probe preloaded (gc-probe.mjs), so
 * its heap holds nothing of the sandbox's. Its live heap is read after a forced GC before the call
 * and at every tenth progress notification (one comes per page); the figure is the largest
 * reading during the call minus the one before it. Nothing here fails on timing or size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { newConversation, newEvent } from '../../src/sandbox/state.js';
import { ROOT } from '../support/paths.js';

const DAY = 86_400_000;
const PROBE = pathToFileURL(path.join(ROOT, 'test/bench/gc-probe.mjs')).href;

async function measure(count: number): Promise<void> {
  const sandbox = await startSandbox({ rateLimit: { limit: 1_000_000, windowMs: 60_000 } });
  const ws = sandbox.state.workspaces.get(sandbox.seed.workspaceA)!;
  const agents = [...ws.bots.keys()];
  const now = Date.now();
  for (let n = 0; n < count; n++) {
    const id = `f${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`;
    const at = now - 1000 - Math.floor((n / count) * 364 * DAY);
    const question = newEvent(id, `${id}-q`, at, 'user', 'message', `Question number ${n} about an order`);
    const answer = {
      ...newEvent(id, `${id}-a`, at + 1000, 'svcbot', 'message', `Answer number ${n}`),
      approved: n % 3 === 0 ? false : n % 3 === 1 ? true : null,
      csatRating: n % 7 < 6 ? n % 6 : null,
    };
    ws.conversations.set(
      id,
      newConversation({
        id,
        createdAt: at,
        source: n % 2 ? 'api' : 'widget',
        channel: n % 5 ? 'chat' : 'email',
        subjectPreview: null,
        companyId: ws.id,
        botId: agents[n % agents.length],
        events: [question, answer],
      }),
    );
  }

  const exportDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-memory-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--expose-gc', '--import', 'tsx', '--import', PROBE, path.join(ROOT, 'src/cli.ts')],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin, SVC_RATE_LIMIT: '1000000/60s', SVC_EXPORT_DIR: exportDir, SVC_LOG_LEVEL: 'silent' },
    stderr: 'pipe',
  });
  const readings: Array<(heap: number) => void> = [];
  let pending = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let match = /bench-rss (\d+) (\d+)\n/.exec(pending); match; match = /bench-rss (\d+) (\d+)\n/.exec(pending)) {
      pending = pending.slice(match.index + match[0].length);
      readings.shift()?.(Number(match[2]));
    }
  });
  const client = new Client({ name: 'stats-memory', version: '1.0.0' });
  await client.connect(transport);
  const heap = () =>
    new Promise<number>((resolve) => {
      readings.push(resolve);
      process.kill(transport.pid!, 'SIGUSR2');
    });

  const run = async (name: string, args: Record<string, unknown>) => {
    const before = await heap();
    const samples: Array<Promise<number>> = [];
    let pages = 0;
    const result = (await client.callTool({ name, arguments: args }, undefined, {
      timeout: 60_000,
      resetTimeoutOnProgress: true,
      onprogress: () => {
        if (pages++ % 10 === 0) samples.push(heap());
      },
    })) as CallToolResult;
    if (result.isError) throw new Error(JSON.stringify(result.content));
    const peak = Math.max(...(await Promise.all(samples)));
    const data = result.structuredContent as { count: number; requests: number };
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
    console.log(
      `${name} over 365 days, ${count} conversations: counted ${data.count} in ${data.requests} requests; heap before ${mb(before)}, at most ${mb(peak - before)} above it during the call (${samples.length} readings)`,
    );
  };
  // Code that runs once per process (imports, compiled schemas) is not what is measured.
  await client.callTool({ name: 'conversation_stats', arguments: { since: '1d' } });
  await client.callTool({ name: 'export_conversations', arguments: { since: '1d', outputFile: 'warm-up.ndjson' } });
  await run('conversation_stats', { since: '365d', groupBy: ['agent', 'week'] });
  await run('export_conversations', { since: '365d', maxConversations: 100_000, outputFile: `all-${count}.ndjson` });
  await client.close();
  await sandbox.close();
  rmSync(exportDir, { recursive: true, force: true });
}

const counts = process.argv.slice(2).map(Number).filter(Boolean);
for (const count of counts.length ? counts : [10_000, 100_000]) await measure(count);
