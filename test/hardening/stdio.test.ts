import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedStdioTransport } from '../../src/transports/stdio.js';
import { useSandbox } from '../support/fixture.js';
import { ROOT } from '../support/paths.js';
import { initializeRequest } from '../support/harness.js';

/** A transport over in-memory streams, with every line it writes parsed. */
function harness(maxBytes: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: Array<Record<string, any>> = [];
  let pending = '';
  output.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    written.push(...lines.map((line) => JSON.parse(line)));
  });
  const transport = new BoundedStdioTransport(maxBytes, true, input, output);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => void received.push(message);
  let closed = false;
  transport.onclose = () => (closed = true);
  return { input, transport, written, received, closed: () => closed };
}

describe('stdio message size (finding 11)', () => {
  it('answers an over-long message with a JSON-RPC error for its id and keeps serving', async () => {
    const { input, transport, written, received, closed } = harness(64 * 1024);
    await transport.start();
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'create_folder', arguments: { name: 'x'.repeat(10 * 1024 * 1024) } } });
    for (let offset = 0; offset < huge.length; offset += 65_536) input.write(huge.slice(offset, offset + 65_536));
    input.write('\n');
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'ping' })}\n`);
    input.write('not json\n');
    await vi.waitFor(() => expect(written).toHaveLength(2));
    expect(written[0]).toMatchObject({ jsonrpc: '2.0', id: 41, error: { code: -32600, message: expect.stringContaining('SVC_MAX_MESSAGE_BYTES') } });
    expect(written[1]).toMatchObject({ id: null, error: { code: -32700 } });
    expect(received).toEqual([{ jsonrpc: '2.0', id: 42, method: 'ping' }]);
    expect(closed()).toBe(false);
  });
});

describe('an over-long stdio message is answered for its top-level id, wherever it sits', () => {
  const MAX = 2048;
  /** Ids as clients send them: numbers, and strings with quotes, backslashes, escapes and non-ASCII text. */
  const anyId = fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('a"b', 'c\\d', '\u0000', 'id', '{"id":1}'));
  const decoy = fc.oneof(fc.integer(), fc.string({ maxLength: 12 }), fc.constant(null), fc.constant({ id: 7 }));

  it('finds it before, between and after long params, its key escaped or not, with decoy ids nested, in strings and in look-alike keys', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyId,
        decoy,
        fc.integer({ min: MAX, max: 3 * MAX }),
        fc.integer({ min: 0, max: 4 }),
        fc.boolean(),
        fc.constantFrom('', ' ', '\t'),
        fc.array(fc.integer({ min: 1, max: 4 * MAX }), { maxLength: 6 }),
        async (id, decoyId, padding, idPlace, escapedKey, space, cuts) => {
          const params = JSON.stringify({ name: 'create_folder', arguments: { id: decoyId, text: `"id": 5, {"id": 6} ${'x'.repeat(padding)}`, nested: [{ id: decoyId }] } });
          const entries = [`"jsonrpc":"2.0"`, `"method":"tools/call"`, `"params"${space}:${space}${params}`, `"idx":${JSON.stringify(decoyId)}`];
          entries.splice(idPlace, 0, `${escapedKey ? '"\\u0069d"' : '"id"'}${space}:${space}${JSON.stringify(id)}`);
          const line = `{${space}${entries.join(`${space},${space}`)}${space}}`;
          expect(JSON.parse(line).id).toEqual(id);

          const { input, transport, written, received } = harness(MAX);
          await transport.start();
          const bytes = Buffer.from(line);
          let from = 0;
          for (const cut of [...cuts].sort((a, b) => a - b).filter((cut) => cut < bytes.length)) {
            input.write(bytes.subarray(from, cut));
            from = cut;
          }
          input.write(bytes.subarray(from));
          input.write(space === '\t' ? '\r\n' : '\n');
          await vi.waitFor(() => expect(written).toHaveLength(1));
          expect(written[0]).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: expect.stringContaining('SVC_MAX_MESSAGE_BYTES') } });
          expect(received).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers a 10 MiB call whose id comes last', async () => {
    const { input, transport, written } = harness(64 * 1024);
    await transport.start();
    const huge = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"create_folder","arguments":{"id":3,"name":"${'x'.repeat(10 * 1024 * 1024)}"}},"id":"call-\\"77\\""}`;
    for (let offset = 0; offset < huge.length; offset += 65_536) input.write(huge.slice(offset, offset + 65_536));
    input.write('\n');
    await vi.waitFor(() => expect(written).toHaveLength(1));
    expect(written[0]).toMatchObject({ id: 'call-"77"', error: { code: -32600 } });
  });

  it('answers null for a batch, or an id that is not a string or number', async () => {
    const { input, transport, written } = harness(1024);
    await transport.start();
    for (const line of [`[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"${'x'.repeat(2000)}"}}]`, `{"id":true,"p":"${'x'.repeat(2000)}"}`, `{"id":{"id":4},"p":"${'x'.repeat(2000)}"}`]) {
      input.write(`${line}\n`);
    }
    await vi.waitFor(() => expect(written).toHaveLength(3));
    expect(written.map((message) => message.id)).toEqual([null, null, null]);
  });
});

describe('stdio on SIGTERM (finding 12)', () => {
  const sandbox = useSandbox();

  it('finishes a write in flight, answers it, then exits 0', async () => {
    // The write's upstream answer takes 1.5 s; SIGTERM comes while it is in flight.
    sandbox.injectFaults([{ method: 'POST', path: '/v2/hc-folders/public', delayMs: 1_500 }]);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin, SVC_CONFIRM: 'none', SVC_DRAIN_MS: '10000' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send(initializeRequest('t'));
    await vi.waitFor(() => expect(stdout).toContain('"id":1'), { timeout: 15_000 });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_folder', arguments: { name: 'Drained' } } });
    await vi.waitFor(() => expect(sandbox.requests.some((request) => request.method === 'POST')).toBe(true), { timeout: 10_000 });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const answer = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((message) => message.id === 2);
    expect(answer?.result?.isError, stderr).toBeFalsy();
    expect(JSON.stringify(answer.result.structuredContent)).toContain('Drained');
  }, 40_000);
});
