import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, InitializeRequestSchema, isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { Envelope, messageJson, shapeResult } from '../../src/engine/output.js';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { eventsSerialisedOnce, initializeChecksByMethod, requestsStraightToDispatch, setToolCallHandler } from '../../src/engine/sdk-costs.js';
import { createRuntime } from '../../src/runtime.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { startHttpServer } from '../../src/transports/http.js';
import { connect, sandboxEnv } from '../support/harness.js';
import { connectHttp } from '../support/http-harness.js';

/** What the envelope must escape, as the Unicode data of this runtime says (design 10.5). */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

describe('fast paths of the call path', () => {
  it('one-line text skips the Unicode pattern only for characters that cannot be unsafe: every character below U+10000', () => {
    const envelope = new Envelope();
    const missed: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      if ((envelope.oneLine(text) !== text) !== UNSAFE.test(text)) missed.push(code.toString(16));
    }
    expect(missed).toEqual([]);
  });

  it('field names and days cached across results render as in a fresh process', () => {
    const day = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    const render = (data: unknown) => JSON.stringify(shapeResult(data, { view: 'full', capChars: 100_000 }).content[0]);
    const first = render({ createdAt: day, 'odd name': 'x', plain: 'y' });
    expect(first).toContain('createdAt: 2026-01-02T03:04:05.006Z');
    expect(render({ createdAt: day + 86_400_000, plain: 'y' })).toContain('createdAt: 2026-01-03T03:04:05.006Z');
    expect(render({ plain: { createdAt: day } })).toContain('"plain:\\n  createdAt: 2026-01-02T03:04:05.006Z"');
  });

  it('a tool call fails no zod parse on its way, in the engine (stdio) and over Streamable HTTP, client included: no error is built for a stack to cost', async () => {
    const sandbox = await startSandbox({ rateLimit: 'off' });
    const http = await startHttpServer(await createRuntime(loadConfig(['--transport', 'http', '--http-port', '0'], { SVC_BASE_URL: sandbox.url }), pino({ level: 'silent' })));
    const overStdio = await connect({ env: sandboxEnv(sandbox) });
    const overHttp = await connectHttp(http.url, { key: sandbox.keys.admin });
    // zod asks for every failed parse's issue messages: a custom error map that adds none counts them.
    let failedIssues = 0;
    try {
      for (const connection of [overStdio, overHttp]) await connection.call('list_conversations', { limit: 2 });
      z.config({ customError: () => void failedIssues++ });
      z.string().safeParse(1);
      expect(failedIssues).toBe(1);
      failedIssues = 0;
      for (let index = 0; index < 3; index++) {
        for (const connection of [overStdio, overHttp]) expect((await connection.call('list_conversations', { limit: 2 })).isError).toBeFalsy();
      }
      expect(failedIssues).toBe(0);
    } finally {
      z.config({ customError: undefined });
      await overStdio.close();
      await overHttp.close();
      await http.shutdown('test done');
      await sandbox.close();
    }
  });

  it("hands requests straight to the SDK's dispatch, which the SDK in use still has, and every other message to its delivery", () => {
    const server = new Server({ name: 't', version: '1' });
    expect(typeof (server as unknown as { _onrequest?: unknown })._onrequest).toBe('function');
    const dispatched: JSONRPCMessage[] = [];
    const delivered: JSONRPCMessage[] = [];
    Object.assign(server, { _onrequest: (message: JSONRPCMessage) => dispatched.push(message) });
    const deliver = requestsStraightToDispatch(server, (message) => void delivered.push(message));
    const request: JSONRPCMessage = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } };
    const others: JSONRPCMessage[] = [
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 3, error: { code: -1, message: 'no' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', result: {} } as unknown as JSONRPCMessage,
    ];
    for (const message of [request, ...others]) deliver(message);
    expect(dispatched).toEqual([request]);
    expect(delivered).toEqual(others);
  });

  it('a tools/call handler installed without the SDK wrapper still gets only requests that parse, and its result as it made it', async () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    setToolCallHandler(server, async (request) => ({ content: [{ type: 'text', text: `ran ${request.params.name}` }], structuredContent: { n: 1 } }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientSide);
    try {
      await expect(client.request({ method: 'tools/call', params: { arguments: {} } } as never, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
      expect(await client.request({ method: 'tools/call', params: { name: 'x' } }, CallToolResultSchema)).toEqual({ content: [{ type: 'text', text: 'ran x' }], structuredContent: { n: 1 } });
    } finally {
      await client.close();
    }
  });

  it('a message with a shaped result reads back as JSON.stringify would write it, whatever the data, the view, the cap and the id', () => {
    const list = { items: 'items', compact: (item: Record<string, unknown>) => ({ id: item.id, name: item.name }), more: 'Page on.' };
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.record({ items: fc.array(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), { maxLength: 30 }), more: fc.jsonValue({ maxDepth: 1 }) })),
        fc.constantFrom('compact', 'full'),
        fc.boolean(),
        fc.integer({ min: 200, max: 20_000 }),
        fc.oneof(fc.integer(), fc.string()),
        (data, view, asList, capChars, id) => {
          const result = shapeResult(data, { view, capChars, list: asList ? list : undefined, heading: asList ? 'Listed.' : undefined });
          const message = { jsonrpc: '2.0' as const, id, result };
          expect(JSON.parse(messageJson(message))).toEqual(JSON.parse(JSON.stringify(message)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a message without a shaped result is written exactly as JSON.stringify writes it; a shaped one with the JSON the cap made', () => {
    const shaped = shapeResult({ a: 1 }, { view: 'full', capChars: 1000 });
    // Changed after shaping (nothing does), the result would still be written as shaped: the cap's JSON is what goes out.
    const changed = shapeResult({ a: 1 }, { view: 'full', capChars: 1000 });
    (changed.structuredContent as { a: number }).a = 2;
    expect(messageJson({ jsonrpc: '2.0', id: 0, result: changed })).toContain('"structuredContent":{"a":1}');
    for (const message of [
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x' }], structuredContent: { a: 1 } } },
      { jsonrpc: '2.0', id: 2, result: { ...shaped } },
      { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'no' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
    ] as JSONRPCMessage[]) {
      expect(messageJson(message)).toBe(JSON.stringify(message));
    }
  });

  it("frames an HTTP answer's SSE event as the SDK does, on the transport the SDK in use still has", () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const inner = (transport as unknown as { _webStandardTransport: WebStandardStreamableHTTPServerTransport })._webStandardTransport;
    type SseWrite = (controller: unknown, encoder: { encode(text: string): Uint8Array }, message: JSONRPCMessage, eventId?: string) => boolean;
    // A private method of the SDK's, which eventsSerialisedOnce takes the place of on each transport.
    const sdkWrite = (WebStandardStreamableHTTPServerTransport.prototype as unknown as { writeSSEEvent: SseWrite }).writeSSEEvent;
    expect(inner).toBeInstanceOf(WebStandardStreamableHTTPServerTransport);
    eventsSerialisedOnce(transport);
    const ours = (inner as unknown as { writeSSEEvent: SseWrite }).writeSSEEvent;
    expect(ours).not.toBe(sdkWrite);
    const written = (write: SseWrite, message: JSONRPCMessage, eventId?: string) => {
      const chunks: Uint8Array[] = [];
      expect(write.call(inner, { enqueue: (chunk: Uint8Array) => chunks.push(chunk) }, new TextEncoder(), message, eventId)).toBe(true);
      return Buffer.concat(chunks).toString('utf8');
    };
    const plain = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'a\nb' }] } } as JSONRPCMessage;
    for (const eventId of [undefined, 'e-1']) expect(written(ours, plain, eventId)).toBe(written(sdkWrite, plain, eventId));
    const shapedMessage = { jsonrpc: '2.0', id: 8, result: shapeResult({ items: [{ id: 'a', text: 'line\nbreak' }] }, { view: 'full', capChars: 10_000 }) } as JSONRPCMessage;
    const [ourHead, ourData] = written(ours, shapedMessage, 'e-2').split('data: ');
    const [sdkHead, sdkData] = written(sdkWrite, shapedMessage, 'e-2').split('data: ');
    expect(ourHead).toBe(sdkHead);
    expect(ourData.endsWith('\n\n')).toBe(true);
    expect(JSON.parse(ourData)).toEqual(JSON.parse(sdkData));
  });

  it("tells an initialize from any other message as the SDK's full parse does, on the schema the SDK in use still has", () => {
    expect(Object.getOwnPropertyDescriptor(InitializeRequestSchema, 'safeParse')?.writable).toBe(true);
    // Installed once however often it is asked for (an HTTP server in this worker may have done it already).
    initializeChecksByMethod();
    initializeChecksByMethod();
    const call = (id: number) => InitializeRequestSchema.safeParse({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } });
    // The same failure, built once: the shortcut is what answered.
    expect(call(2)).toBe(call(3));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
    expect(isInitializeRequest(initialize)).toBe(true);
    expect(isInitializeRequest({ ...initialize, method: 'tools/call' })).toBe(false);
    const wrongMethod = call(4);
    expect(wrongMethod.success).toBe(false);
    expect(wrongMethod.error?.issues.map((issue) => issue.path)).toEqual([['method']]);
    // The full parse, by zod's own function rather than the schema's method this server replaced.
    const fullParse = (value: unknown) => z.safeParse(InitializeRequestSchema, value).success;
    const method = fc.oneof(fc.constant('initialize'), fc.constantFrom('tools/call', 'Initialize', 'initialize ', ''), fc.string(), fc.anything());
    const params = fc.oneof(fc.constant(initialize.params), fc.record({ protocolVersion: fc.string(), capabilities: fc.anything(), clientInfo: fc.anything() }, { requiredKeys: [] }), fc.anything());
    const message = fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), fc.anything()), id: fc.oneof(fc.integer(), fc.string(), fc.anything()), method, params }, { requiredKeys: [] });
    let passed = 0;
    fc.assert(
      fc.property(fc.oneof(message, fc.anything(), fc.array(message)), (value) => {
        const full = fullParse(value);
        passed += full ? 1 : 0;
        expect(isInitializeRequest(value)).toBe(full);
      }),
      { numRuns: 2000 },
    );
    // Both answers drawn, not only the easy one.
    expect(passed).toBeGreaterThan(20);
  });
});
