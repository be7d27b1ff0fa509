import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  InitializeRequestSchema,
  isInitializeRequest,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { Envelope, messageJson, shapeResult, stringsArePlain } from '../../src/engine/output.js';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { eventsSerialisedOnce, initializeChecksByMethod, isPlainRequest, requestsStraightToDispatch, setToolCallHandler } from '../../src/engine/sdk-costs.js';
import { createRuntime } from '../../src/runtime.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { startHttpServer } from '../../src/transports/http.js';
import { connect, sandboxEnv } from '../support/harness.js';
import { connectHttp } from '../support/http-harness.js';

/** JSON-RPC requests, mostly in the forms clients send, and near misses: odd ids, versions and methods, params with odd names, arguments, `_meta`, `task` and extra fields, and own `__proto__` keys as JSON.parse makes them. */
const often = <T, U>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<U>) => fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: odd, weight: 1 });
const idOrToken = often(fc.oneof(fc.integer(), fc.string()), fc.oneof(fc.double(), fc.constantFrom(2 ** 53, -0, 1.5, Number.NaN, null, true), fc.anything()));
const params = fc.record(
  {
    name: often(fc.string(), fc.anything()),
    arguments: often(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), fc.oneof(fc.constant(JSON.parse('{"__proto__":{"x":1}}')), fc.anything())),
    _meta: often(fc.record({ progressToken: idOrToken }, { requiredKeys: [] }), fc.oneof(fc.constant(JSON.parse('{"__proto__":{}}')), fc.anything())),
  },
  { requiredKeys: ['name'] },
);
const request = fc.record(
  { jsonrpc: often(fc.constant('2.0'), fc.anything()), id: idOrToken, method: often(fc.oneof(fc.constant('tools/call'), fc.string()), fc.anything()), params: often(fc.option(params), fc.anything()) },
  { requiredKeys: ['jsonrpc', 'id', 'method'] },
);
const paramsOf = (value: { params?: unknown }) => (typeof value.params === 'object' && value.params !== null ? value.params : {});
const requestLike = often(
  request.chain((value) => fc.oneof(fc.constant(value), fc.constant(JSON.parse(JSON.stringify(value) ?? 'null')))),
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .tuple(request, fc.oneof(fc.string(), fc.constantFrom('task', '_meta', 'name', 'arguments', '__proto__')), fc.anything())
        .map(([value, key, extra]) => ({ ...value, params: { ...paramsOf(value), [key]: extra } })),
    },
    fc
      .tuple(request, fc.constantFrom('name', 'arguments', '_meta'))
      .map(([value, key]) => ({ ...value, params: Object.fromEntries(Object.entries(paramsOf(value)).filter(([name]) => name !== key)) })),
    fc.tuple(request, fc.string(), fc.anything()).map(([value, key, extra]) => ({ ...value, [key]: extra })),
    fc.anything(),
  ),
);

/** What the envelope must escape, as the Unicode data of this runtime says (design 10.5). */
const UNSAFE = /(?! )[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\p{Zs}]/u;

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

  it("a value's JSON says its strings need no cleaning only when none does: every character below U+10000, in a value and in a field name", () => {
    const envelope = new Envelope();
    const missed: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      for (const value of [text, { [text]: 1 }, [1, { x: text }]]) if (stringsArePlain(JSON.stringify(value)) && envelope.oneLine(text) !== text) missed.push(code.toString(16));
    }
    expect(missed).toEqual([]);
    // Quotes and backslashes in the data keep the shortcut; a control character after a backslash does not.
    expect(stringsArePlain(JSON.stringify({ id: 'c-1', text: 'say "hi" \\ there \\\\"', n: 3 }))).toBe(true);
    expect(stringsArePlain(JSON.stringify('\\\n'))).toBe(false);
  });

  it("a value's JSON says its strings need no cleaning only when none does, whatever strings are drawn (quotes, backslashes, escapes, the tag prefix)", () => {
    const envelope = new Envelope();
    const piece = fc.constantFrom(
      'a',
      ' ',
      '"',
      '\\',
      '\\n',
      '\n',
      '\u0000',
      '\u007f',
      '\u00ad',
      '\u200b',
      '\u2028',
      '\u202e',
      '\ud800',
      '\udc00',
      '\ud83d\ude00',
      'é',
      'untrusted-data-',
      'untrusted-data',
      '-data-',
      'u',
    );
    const text = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(''));
    const strings = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)]) : [];
    let plain = 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3, stringArbitrary: text } as Parameters<typeof fc.jsonValue>[0]), (value) => {
        if (!stringsArePlain(JSON.stringify(value))) return;
        plain++;
        for (const string of strings(value)) expect(envelope.oneLine(string)).toBe(string);
      }),
      { numRuns: 2000 },
    );
    expect(plain).toBeGreaterThan(100);
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

  it("takes a request in its plain form only where the SDK's request and message schemas accept it, and as they give it back", () => {
    // The forms clients send, which the shortcut is for.
    for (const common of [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { limit: 2 } } },
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x', arguments: {}, _meta: { progressToken: 7 } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]) {
      expect(isPlainRequest(common)).toBe(true);
    }
    let plain = 0;
    fc.assert(
      fc.property(requestLike, (value) => {
        if (!isPlainRequest(value)) return;
        plain++;
        expect(z.safeParse(JSONRPCRequestSchema, value).success).toBe(true);
        expect(z.safeParse(JSONRPCMessageSchema, value).data).toEqual(value);
      }),
      { numRuns: 3000 },
    );
    expect(plain).toBeGreaterThan(100);
  });

  it("a tools/call handler gets a plain call as it came and any other as the SDK's schema gives it back, and none the schema refuses", async () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    const received: unknown[] = [];
    setToolCallHandler(server, async (request) => {
      received.push(request.params);
      return { content: [] };
    });
    // The SDK's own table of handlers by method, which its dispatch reads, and the entry installed in it.
    const table = (server as unknown as { _requestHandlers: Map<string, (request: unknown, extra: unknown) => Promise<unknown>> })._requestHandlers;
    expect(table).toBeInstanceOf(Map);
    const handle = table.get('tools/call')!;
    const toolCall = requestLike.map((value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value, method: 'tools/call' } : value));
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(toolCall, async (value) => {
        received.length = 0;
        const parsed = z.safeParse(CallToolRequestSchema, value);
        const answer = await Promise.resolve()
          .then(() => handle(value, {}))
          .then(
            () => 'ran',
            (error: { code?: number }) => error.code,
          );
        if (!parsed.success) {
          expect(answer).not.toBe('ran');
          return;
        }
        accepted++;
        expect(answer).toBe('ran');
        expect(received).toEqual([parsed.data.params]);
      }),
      { numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(100);
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
