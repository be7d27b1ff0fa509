import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  InitializeRequestSchema,
  isInitializeRequest,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { loadConfig } from '../../src/config.js';
import { messageJson } from '../../src/engine/render/wire.js';
import { wireResult } from '../support/shape.js';
import { createRuntime } from '../../src/runtime.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { connectServer, type MessageObserver } from '../../src/sdk/incoming.js';
import { requestHandlerTableOf, sseWritingOf, type SseEventWriter } from '../../src/sdk/internals.js';
import { eventsSerialisedOnce, initializeChecksByMethod, isPlainRequest, jsonRpcMessageOf, requestsStraightToDispatch, setToolCallHandler, validatorOnFirstUse } from '../../src/sdk/shortcuts.js';
import { startHttpServer } from '../../src/transports/http/server.js';
import { connect, initializeRequest, sandboxEnv } from '../support/harness.js';
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

/** Counts the issues of every failed zod parse while `run` runs: zod asks a custom error map for each one's message. */
async function failedParseIssues(run: () => Promise<void>): Promise<number> {
  let issues = 0;
  z.config({ customError: () => void issues++ });
  try {
    z.string().safeParse(1);
    expect(issues).toBe(1);
    issues = 0;
    await run();
    return issues;
  } finally {
    z.config({ customError: undefined });
  }
}

describe('shortcuts around the MCP SDK (src/sdk/shortcuts.ts)', () => {
  for (const shortcuts of ['on', 'off'] as const) {
    it(`with SVC_SDK_SHORTCUTS=${shortcuts}, a tool call ${shortcuts === 'on' ? 'fails no zod parse on its way' : "takes the SDK's own parses, failed ones included"}, in the engine (stdio) and over Streamable HTTP, client included`, async () => {
      const sandbox = await startSandbox({ rateLimit: 'off' });
      const env = { SVC_SDK_SHORTCUTS: shortcuts };
      const http = await startHttpServer(await createRuntime(loadConfig(['--transport', 'http', '--http-port', '0'], { ...env, SVC_BASE_URL: sandbox.url }), pino({ level: 'silent' })));
      const overStdio = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, env) });
      const overHttp = await connectHttp(http.url, { key: sandbox.keys.admin });
      try {
        for (const connection of [overStdio, overHttp]) await connection.call('list_conversations', { limit: 2 });
        for (const connection of [overStdio, overHttp]) {
          const issues = await failedParseIssues(async () => {
            for (let index = 0; index < 3; index++) expect((await connection.call('list_conversations', { limit: 2 })).isError).toBeFalsy();
          });
          if (shortcuts === 'on') expect(issues).toBe(0);
          else expect(issues).toBeGreaterThan(0);
        }
      } finally {
        await overStdio.close();
        await overHttp.close();
        await http.shutdown('test done');
        await sandbox.close();
      }
    });
  }

  it("hands requests straight to the SDK's dispatch, and every other message to its delivery; off, everything to its delivery", () => {
    const server = new Server({ name: 't', version: '1' });
    const dispatched: JSONRPCMessage[] = [];
    const delivered: JSONRPCMessage[] = [];
    Object.assign(server, { _onrequest: (message: JSONRPCMessage) => dispatched.push(message) });
    const delivery = (message: JSONRPCMessage) => void delivered.push(message);
    expect(requestsStraightToDispatch(server, delivery, false)).toBe(delivery);
    const deliver = requestsStraightToDispatch(server, delivery, true);
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
      expect(jsonRpcMessageOf(common, true)).toBe(common);
      // Off, the SDK's schema reads it, and gives back its own copy.
      expect(jsonRpcMessageOf(common, false)).not.toBe(common);
      expect(jsonRpcMessageOf(common, false)).toEqual(common);
    }
    let plain = 0;
    fc.assert(
      fc.property(requestLike, (value) => {
        expect(jsonRpcMessageOf(value, true) !== undefined).toBe(z.safeParse(JSONRPCMessageSchema, value).success);
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
    setToolCallHandler(
      server,
      async (request) => {
        received.push(request.params);
        return { content: [] };
      },
      true,
    );
    const handle = requestHandlerTableOf(server)!.get('tools/call')! as (request: unknown, extra: unknown) => unknown;
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

  for (const on of [true, false]) {
    it(`a tools/call handler installed ${on ? 'without' : 'with'} the SDK's wrapper gets only requests that parse, and its result ${on ? 'as it made it' : "checked by the SDK's result schema"}`, async () => {
      const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
      const results: Record<string, unknown> = { x: { content: [{ type: 'text', text: 'ran x' }], structuredContent: { n: 1 } }, odd: { content: 'not a list' } };
      setToolCallHandler(server, async (request) => results[request.params.name] as CallToolResult, on);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'c', version: '1' });
      await client.connect(clientSide);
      try {
        // Without the shortcut, the base protocol's parse throws first, and the SDK answers -32603 for it.
        await expect(client.request({ method: 'tools/call', params: { arguments: {} } } as never, z.unknown())).rejects.toMatchObject({ code: on ? -32602 : expect.any(Number) });
        expect(await client.request({ method: 'tools/call', params: { name: 'x' } }, CallToolResultSchema)).toEqual(results.x);
        const odd = client.request({ method: 'tools/call', params: { name: 'odd' } }, z.unknown());
        if (on) await expect(odd).resolves.toEqual(results.odd);
        else await expect(odd).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Invalid tools/call result') });
      } finally {
        await client.close();
      }
    });
  }

  it("frames an HTTP answer's SSE event as the SDK does; off, the SDK's own writer stays", () => {
    const sdkWrite = (WebStandardStreamableHTTPServerTransport.prototype as unknown as { writeSSEEvent: SseEventWriter }).writeSSEEvent;
    const untouched = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    eventsSerialisedOnce(untouched, messageJson, false);
    expect(sseWritingOf(untouched)!.writeSSEEvent).toBe(sdkWrite);

    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const inner = sseWritingOf(transport)!;
    eventsSerialisedOnce(transport, messageJson, true);
    const ours = inner.writeSSEEvent;
    expect(ours).not.toBe(sdkWrite);
    const written = (write: SseEventWriter, message: JSONRPCMessage, eventId?: string) => {
      const chunks: Uint8Array[] = [];
      expect(write.call(inner, { enqueue: (chunk: Uint8Array) => chunks.push(chunk) }, new TextEncoder(), message, eventId)).toBe(true);
      return Buffer.concat(chunks).toString('utf8');
    };
    const plain = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'a\nb' }] } } as JSONRPCMessage;
    for (const eventId of [undefined, 'e-1']) expect(written(ours, plain, eventId)).toBe(written(sdkWrite, plain, eventId));
    const shapedMessage = { jsonrpc: '2.0', id: 8, result: wireResult({ items: [{ id: 'a', text: 'line\nbreak' }] }, { view: 'full', capChars: 10_000 }) } as JSONRPCMessage;
    const [ourHead, ourData] = written(ours, shapedMessage, 'e-2').split('data: ');
    const [sdkHead, sdkData] = written(sdkWrite, shapedMessage, 'e-2').split('data: ');
    expect(ourHead).toBe(sdkHead);
    expect(ourData.endsWith('\n\n')).toBe(true);
    expect(JSON.parse(ourData)).toEqual(JSON.parse(sdkData));
  });

  it("tells an initialize from any other message as the SDK's full parse does", () => {
    // Installed once however often it is asked for (an HTTP server in this worker may have done it already); off asks for nothing.
    initializeChecksByMethod(false);
    initializeChecksByMethod(true);
    initializeChecksByMethod(true);
    const call = (id: number) => InitializeRequestSchema.safeParse({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } });
    // The same failure, built once: the shortcut is what answered.
    expect(call(2)).toBe(call(3));
    const initialize = initializeRequest('c');
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

  it('builds the elicitation checker at its first use; off, leaves it to the SDK', () => {
    expect(validatorOnFirstUse(false)).toBeUndefined();
    const validator = validatorOnFirstUse(true)!;
    expect(validator.getValidator({ type: 'object', properties: { yes: { type: 'boolean' } }, required: ['yes'] })({ yes: true }).valid).toBe(true);
  });
});

describe('the way of an incoming message (src/sdk/incoming.ts)', () => {
  for (const shortcuts of [true, false]) {
    it(`passes each message to the observers, then the screen, then the dispatch, and shows the observers every answer, a screened one included (shortcuts ${shortcuts ? 'on' : 'off'})`, async () => {
      const steps: string[] = [];
      const server = new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });
      setToolCallHandler(
        server.server,
        (request) => {
          steps.push(`dispatch ${request.params.name}`);
          return { content: [] };
        },
        shortcuts,
      );
      const observer = (name: string): MessageObserver => ({
        received(message, deliver) {
          steps.push(`${name} saw ${'id' in message ? message.id : 'method' in message ? message.method : '?'}`);
          deliver();
        },
        sent(message) {
          if ('id' in message) steps.push(`${name} saw answer ${message.id}`);
        },
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await connectServer(server, serverSide, {
        shortcuts,
        observers: [observer('first'), observer('second')],
        screenToolCall: (name) => {
          steps.push(`screen ${String(name)}`);
          return name === 'refused' ? { content: [{ type: 'text', text: 'no' }], isError: true } : undefined;
        },
      });
      const client = new Client({ name: 'c', version: '1' });
      await client.connect(clientSide);
      steps.length = 0;
      await client.callTool({ name: 'allowed', arguments: {} });
      expect(await client.callTool({ name: 'refused', arguments: {} })).toMatchObject({ isError: true });
      await client.close();
      expect(steps).toEqual([
        'first saw 1',
        'second saw 1',
        'screen allowed',
        'dispatch allowed',
        'first saw answer 1',
        'second saw answer 1',
        'first saw 2',
        'second saw 2',
        'screen refused',
        'first saw answer 2',
        'second saw answer 2',
      ]);
    });
  }
});
