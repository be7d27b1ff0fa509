/**
 * `npm run compare-answers -- before=<dir> after=<dir> [calls=<file>]`: two builds of svc-mcp asked
 * the same questions, answer by answer, to show that a change of structure changed no answer. Each
 * `<dir>` holds a built `svc-mcp.js`, such as a copy of `dist/` made at the commit before:
 *
 *     git worktree add /tmp/old <commit> && (cd /tmp/old && npm ci && npm run build)
 *     npm run build && npm run compare-answers -- before=/tmp/old/dist after=dist
 *
 * The questions are the tool calls the end-to-end tests make (`SVC_TEST_RECORD_CALLS=<file>` records
 * them; without `calls=`, this records them first): every tool, with the arguments, mistakes and
 * refusals the tests thought of. Each build runs over stdio against a sandbox of its own with the
 * same seed, so a write one build sends does not change what the other reads; every call goes to
 * each at once, twice over: with the default confirmation (writes answer with a preview) and with
 * SVC_CONFIRM=none (writes are sent). Answers are compared whole (text, structured content, error
 * flag) after one normalisation (`normalise`, below). The build before runs a second time beside
 * them, and an answer that differs between its own two runs is counted apart, as the run's. Other
 * differences are printed; the exit code is 1 if there is any.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ENTRY_NAME } from './build.js';
import { ROOT } from '../support/paths.js';

interface RecordedCall {
  name: string;
  arguments: Record<string, unknown>;
}

const options = Object.fromEntries(process.argv.slice(2).map((arg) => [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]));
const builds = (['before', 'after'] as const).map((name) => {
  if (!options[name]) throw new Error('usage: npm run compare-answers -- before=<dir> after=<dir> [calls=<file>]');
  const entry = path.resolve(options[name], ENTRY_NAME);
  if (!existsSync(entry)) throw new Error(`${name}: no ${ENTRY_NAME} in ${options[name]}`);
  return { name, entry };
});

function recordedCalls(): RecordedCall[] {
  let file = options.calls;
  if (!file) {
    file = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-calls-')), 'calls.jsonl');
    execFileSync('npx', ['vitest', 'run', '--config', 'test/vitest.config.ts', 'test/e2e'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, SVC_TEST_RECORD_CALLS: file } });
  }
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordedCall);
}

/**
 * Both sandboxes on one clock, started at the same moment however far apart they start, so that
 * the conversations they generate agree; jobs, refine sessions and test runs move on within a
 * second or two, so that the wait tools answer within the replay.
 */
const started = Date.now();
function sandboxOptions() {
  const own = Date.now();
  return {
    rateLimit: 'off' as const,
    conversations: 400,
    now: () => started + (Date.now() - own),
    jobTimings: { pendingMs: 1000, inProgressMs: 1000 },
    refineTimings: { stepMs: 1000 },
    testRunTimings: { runMs: 1000 },
  };
}

async function connect(entry: string, sandbox: Sandbox, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env: {
      PATH: process.env.PATH ?? '',
      SVC_BASE_URL: sandbox.url,
      SVC_API_KEY: sandbox.keys.admin,
      SVC_RATE_LIMIT: '1000000/60s',
      SVC_STATE_DIR: mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-compare-')),
      SVC_MIRROR: 'memory',
      SVC_LOG_LEVEL: 'silent',
      ...env,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'compare-answers', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/**
 * What a run makes at random, numbered by first appearance in an answer: ids (UUIDs outside the seed's scheme,
 * the sandbox's job and tree ids), confirmation tokens and the untrusted envelope's per-call nonce.
 * What depends on the moment or the machine: times to the minute (the builds read their clocks
 * milliseconds apart), a query's duration in milliseconds, the sandbox's port and the signature of
 * its file links (a secret per sandbox).
 */
function normalise(text: string): string {
  const seen = new Map<string, string>();
  const number = (kind: string) => (value: string) => {
    if (!seen.has(value)) seen.set(value, `<${kind} ${seen.size + 1}>`);
    return seen.get(value)!;
  };
  return text
    .replace(/\b[0-9a-f]{8}-(?!000[ab]-4000-8000-)[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, number('id'))
    .replace(/\b[0-9a-z]{6,10}\.[\w-]+\.[\w-]{43}\b/g, number('token'))
    .replace(/\b(?:job_[\w-]{12}|tree_[0-9a-f]{8})\b/g, number('id'))
    .replace(/untrusted-data-[0-9a-f]{8}/g, number('nonce'))
    .replace(/(\d{4}-\d\d-\d\dT\d\d:\d\d):\d\d\.\d{3}Z/g, '$1Z')
    .replace(/\b1[78]\d{11}\b/g, (epochMs) => `<minute ${Math.floor(Number(epochMs) / 60_000)}>`)
    .replace(/; \d+ ms\./g, '; <duration>.')
    .replace(/"ms":\d+/g, '"ms":<duration>')
    .replace(/signature=[0-9a-f]{32}/g, 'signature=<signature>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
}

async function answer(client: Client, call: RecordedCall): Promise<unknown> {
  try {
    const result = await client.callTool({ name: call.name, arguments: call.arguments }, undefined, { timeout: 120_000 });
    return { content: result.content, structuredContent: result.structuredContent, isError: result.isError ?? false };
  } catch (error) {
    return { protocolError: (error as Error).message };
  }
}

const calls = recordedCalls();
let differences = 0;
for (const confirm of ['writes', 'none']) {
  // The build before runs twice: what differs between its own two runs is the run's, not the
  // change's (the drafts that knowledge jobs started together make, listed in the order the
  // sandbox happened to finish them, for one).
  const servers = await Promise.all(
    [...builds, builds[0]].map(async (build) => {
      const sandbox = await startSandbox(sandboxOptions());
      return { sandbox, client: await connect(build.entry, sandbox, { SVC_CONFIRM: confirm }) };
    }),
  );
  let differing = 0;
  let varying = 0;
  for (const call of calls) {
    const [before, after, again] = await Promise.all(servers.map(async (server) => normalise(JSON.stringify(await answer(server.client, call)))));
    if (before === after) continue;
    if (before !== again) {
      varying += 1;
      continue;
    }
    differing += 1;
    if (differing <= Number(process.env.SHOW ?? 20)) {
      let from = 0;
      while (before[from] === after[from]) from += 1;
      const around = (text: string) => text.slice(Math.max(0, from - 150), from + 250);
      console.log(`SVC_CONFIRM=${confirm} ${call.name} ${JSON.stringify(call.arguments).slice(0, 200)}\n  before: …${around(before)}\n  after:  …${around(after)}`);
    }
  }
  console.log(`SVC_CONFIRM=${confirm}: ${calls.length - differing - varying} of ${calls.length} answers identical, ${differing} different, ${varying} varying between two runs of the build before`);
  differences += differing;
  for (const server of servers) {
    await server.client.close();
    await server.sandbox.close();
  }
}
process.exitCode = differences ? 1 : 0;
