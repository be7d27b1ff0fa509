/**
 * The process boundary, which the in-process harness cannot see: stdout carries JSON-RPC only,
 * configuration errors exit 2 with the reason on stderr. Each case spawns the built `svc-mcp`.
 */
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { svcMcpCommand } from '../support/built.js';
import { ROOT } from '../support/paths.js';

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
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
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

function runToExit(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}
