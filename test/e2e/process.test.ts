/**
 * The process boundary, which the in-process harness cannot see: stdout carries JSON-RPC only,
 * configuration errors exit 2 with the reason on stderr. Each case spawns the built `svc-mcp`.
 */
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { svcMcpCommand } from '../support/built.js';
import { ROOT } from '../support/paths.js';
import { initializeRequest } from '../support/harness.js';

let CLI: string[];

beforeAll(async () => {
  CLI = await svcMcpCommand();
}, 60_000);

describe.concurrent('the svc-mcp process', () => {
  it('refuses to start with an unknown group: exit 2, the known groups on stderr, nothing on stdout', { timeout: 30_000 }, async () => {
    const run = await runToExit([...CLI, '--sandbox', '--toolsets', 'agents,billing']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown group(s) billing');
    expect(run.stderr).toContain('conversations');
    expect(run.stdout).toBe('');
  });

  it('writes nothing but JSON-RPC messages to stdout, even with the embedded sandbox and debug logs', { timeout: 30_000 }, async () => {
    const child = spawn(process.execPath, [...CLI, '--sandbox', '--log-level', 'debug'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send(initializeRequest('raw'));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_agents', arguments: {} } });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer; stderr: ${stderr}`)), 15_000);
      child.stdout.on('data', () => {
        if (!stdout.includes('"id":2')) return;
        clearTimeout(timer);
        resolve();
      });
    });
    child.stdin.end();
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(stderr).toContain('upstream request');
  });
});

describe.concurrent('what a person needs to get going, under tee, Docker, nohup or an IDE task (no terminal)', () => {
  it('--sandbox --auth oauth shows the sandbox keys on stderr, and says which clients reach loopback', { timeout: 30_000 }, async () => {
    const output = await readUntil([...CLI, '--sandbox', '--auth', 'oauth', '--transport', 'http', '--http-port', '0'], 'stderr', /read only {7}svc_\S+/);
    expect(output).toMatch(/read and write {2}svc_[A-Za-z0-9_-]{8,}/);
    expect(output).toMatch(/Claude Code, the MCP Inspector, mcp-remote/);
    expect(output).toContain('hosted clients (Claude on the web, ChatGPT) reach only a public https URL');
  });

  it('svc-mcp sandbox writes its URL and keys to stdout for scripts, and to stderr for the person', { timeout: 30_000 }, async () => {
    const stderr = await readUntil([...CLI, 'sandbox', '--port', '0'], 'stderr', /SVC_BASE_URL=\S+ SVC_API_KEY=svc_\S+/);
    expect(stderr).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(stderr).toMatch(/admin\s+svc_[A-Za-z0-9_-]{8,}/);
  });
});

/** Starts `args`, reads `stream` until `until` matches it, stops the process, and gives what was read. */
async function readUntil(args: string[], stream: 'stdout' | 'stderr', until: RegExp): Promise<string> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json' } });
  let read = '';
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${until} never came on ${stream}: ${read}`)), 20_000);
      child[stream].on('data', (chunk: Buffer) => {
        read += chunk.toString();
        if (!until.test(read)) return;
        clearTimeout(timer);
        resolve(read);
      });
    });
  } finally {
    child.kill('SIGTERM');
  }
}

function runToExit(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}
