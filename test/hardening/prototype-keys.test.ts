import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { prototypeKeyProblem } from '../../src/engine/prototype-keys.js';
import { BoundedStdioTransport } from '../../src/transports/stdio.js';

/**
 * Issue 32: `{"params":{"__proto__":{"name":"create_folder",…}}}` created the folder: the SDK's parse
 * copied params and made the own `__proto__` their prototype. Prototype names are refused as own keys
 * at every level of a message, as JSON.parse makes them, before anything parses it.
 */
const NAMES = ['__proto__', 'constructor', 'prototype'] as const;
const plainKey = fc.stringMatching(/^[a-z_]{1,8}$/).filter((key) => !(NAMES as readonly string[]).includes(key));

/** JSON text of a message with a prototype name as a key somewhere along `path` (below `params`, or beside it). */
function messageText(method: string, path: string[], name: string, id: number | undefined): string {
  let value = `{"${name}":{"name":"create_folder","arguments":{"name":"polluted"}}}`;
  for (const key of [...path].reverse()) value = `{"${key}":${value}}`;
  const head = `"jsonrpc":"2.0",${id === undefined ? '' : `"id":${id},`}"method":"${method}"`;
  return path.length === 0 ? `{${head},${value.slice(1, -1)}}` : `{${head},"params":${value}}`;
}

describe('prototype names in a JSON-RPC message (issue 32)', () => {
  it('are found at any level, the message itself, params, _meta and deeper, in a batch too, by path', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('tools/call', 'tools/list', 'resources/read', 'ping', 'notifications/cancelled'),
        fc.array(plainKey, { maxLength: 5 }),
        fc.constantFrom(...NAMES),
        fc.boolean(),
        (method, path, name, batch) => {
          const text = messageText(method, path, name, 1);
          const body = JSON.parse(batch ? `[{"jsonrpc":"2.0","id":0,"method":"ping"},${text}]` : text);
          const expected = [...(batch ? ['[1]'] : []), ...(path.length ? ['params', ...path] : []), name]
            .join('.')
            .replace('.[', '[')
            .replace(/^\[1\]\./, '[1].');
          const problem = prototypeKeyProblem(body);
          if (method === 'tools/call' && path[0] === 'arguments') expect(problem).toBeUndefined();
          else expect(problem).toBe(`${expected}: "${name}" is not allowed as a field name, at any level of a message`);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('pass messages without them, and leave a call’s arguments to the call’s own guard', () => {
    expect(prototypeKeyProblem({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: JSON.parse('{"__proto__":{}}') } })).toBeUndefined();
    expect(prototypeKeyProblem({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { arguments: JSON.parse('{"__proto__":{}}') } })).toContain('params.arguments.__proto__');
    expect(prototypeKeyProblem(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"constructor":1}}}'))).toContain('params._meta.constructor');
    // Nesting far beyond any stack: the walk keeps its own.
    let deep = '{"__proto__":1}';
    for (let level = 0; level < 200_000; level++) deep = `{"a":${deep}}`;
    expect(prototypeKeyProblem(JSON.parse(`{"jsonrpc":"2.0","id":1,"method":"ping","params":${deep}}`))).toMatch(/^params(\.a)+\.__proto__/);
  });

  it('over stdio: refused with an error for its id, nothing delivered, and the transport keeps serving', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const written: Array<Record<string, any>> = [];
    output.on('data', (chunk: Buffer) =>
      written.push(
        ...chunk
          .toString()
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ),
    );
    const transport = new BoundedStdioTransport(1 << 20, true, input, output);
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (message) => void received.push(message);
    await transport.start();
    input.write(`${messageText('tools/call', [], '__proto__', 7).replace('"method":"tools/call",', '"method":"tools/call",')}\n`);
    input.write('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"__proto__":{"name":"create_folder","arguments":{"name":"x"}}}}\n');
    input.write('{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
    await vi.waitFor(() => expect(written).toHaveLength(2));
    expect(written[0]).toMatchObject({ id: 7, error: { code: -32600, message: expect.stringContaining('__proto__: "__proto__" is not allowed') } });
    expect(written[1]).toMatchObject({ id: 8, error: { code: -32600, message: expect.stringContaining('params.__proto__') } });
    expect(received).toEqual([{ jsonrpc: '2.0', id: 9, method: 'ping' }]);
  });
});
