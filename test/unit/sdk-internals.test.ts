import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, isInitializeRequest, ListToolsRequestSchema, McpError, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { assertHandlerCapability, initializeSchema, ownInitializeCheck, requestDispatchOf, requestHandlerTableOf, setBaseRequestHandler, sseWritingOf } from '../../src/sdk/internals.js';
import type { SseEventWriter, TableHandler } from '../../src/sdk/internals.js';
import { eventsSerialisedOnce } from '../../src/sdk/shortcuts.js';
import { initializeRequest } from '../support/harness.js';

/**
 * The contract of every SDK internal src/sdk/ uses (src/sdk/internals.ts): not only that each member
 * is there, but that it still does what the shortcuts count on. An SDK release that changes one
 * fails here, by name, before a user meets it; SVC_SDK_SHORTCUTS=off then runs without them.
 */

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A server on an in-memory transport, with every message it sends kept as the very object it sent. */
async function connected(capabilities: ConstructorParameters<typeof Server>[1] = { capabilities: { tools: {} } }) {
  const server = new Server({ name: 't', version: '1' }, capabilities);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  await server.connect(serverSide);
  await clientSide.start();
  return { server, serverSide, sent, close: () => server.close() };
}

const call = (id: number, name = 'x'): JSONRPCRequest => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

describe('the MCP SDK internals src/sdk/ relies on', () => {
  it("Protocol#_onrequest runs the table's handler with the request object as received and the extra it was given, and sends the handler's value itself as the result", async () => {
    const { server, sent, close } = await connected();
    const dispatch = requestDispatchOf(server);
    const table = requestHandlerTableOf(server);
    expect(dispatch).toBeTypeOf('function');
    expect(table).toBeInstanceOf(Map);
    const seen: Array<{ request: unknown; extra: Record<string, unknown> }> = [];
    // A field no result schema knows: only a value sent as it is keeps it.
    const result = { content: [], notInAnySchema: 1 };
    table!.set('tools/call', ((request: unknown, extra: Record<string, unknown>) => {
      seen.push({ request, extra });
      return result;
    }) as TableHandler);
    const request = call(1);
    const authInfo = { token: 't', clientId: 'c', scopes: [] };
    const requestInfo = { headers: { 'mcp-protocol-version': '2025-06-18' } };
    dispatch!(request, { authInfo, requestInfo });
    await tick();
    expect(seen).toHaveLength(1);
    expect(seen[0].request).toBe(request);
    expect(seen[0].extra).toMatchObject({ requestId: 1, authInfo, requestInfo });
    expect(seen[0].extra.signal).toBeInstanceOf(AbortSignal);
    expect(seen[0].extra.sendNotification).toBeTypeOf('function');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ jsonrpc: '2.0', id: 1 });
    expect((sent[0] as { result: unknown }).result).toBe(result);
    await close();
  });

  it('Protocol#_onrequest answers a thrown McpError with its code, and a method without a handler with MethodNotFound', async () => {
    const { server, sent, close } = await connected();
    requestHandlerTableOf(server)!.set('tools/call', (() => {
      throw new McpError(ErrorCode.InvalidParams, 'no');
    }) as TableHandler);
    const dispatch = requestDispatchOf(server)!;
    dispatch(call(2));
    dispatch({ jsonrpc: '2.0', id: 3, method: 'no/such' });
    await tick();
    expect(sent).toHaveLength(2);
    expect(sent).toContainEqual({ jsonrpc: '2.0', id: 2, error: { code: ErrorCode.InvalidParams, message: expect.stringContaining('no') } });
    expect(sent).toContainEqual({ jsonrpc: '2.0', id: 3, error: { code: ErrorCode.MethodNotFound, message: 'Method not found' } });
    await close();
  });

  it("the SDK's delivery, installed by connect as the transport's onmessage after any it had, reaches that same dispatch for a request", async () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const before: JSONRPCMessage[] = [];
    const earlier = (message: JSONRPCMessage) => void before.push(message);
    serverSide.onmessage = earlier;
    await server.connect(serverSide);
    await clientSide.start();
    expect(serverSide.onmessage).toBeTypeOf('function');
    expect(serverSide.onmessage).not.toBe(earlier);
    const seen: unknown[] = [];
    requestHandlerTableOf(server)!.set('tools/call', ((request: unknown) => {
      seen.push(request);
      return { content: [] };
    }) as TableHandler);
    const request = call(4);
    serverSide.onmessage!(request);
    await tick();
    expect(before).toEqual([request]);
    expect(seen).toEqual([request]);
    await server.close();
  });

  it('Protocol#_requestHandlers is where setRequestHandler installs, and the dispatch reads it at each request', async () => {
    const { server, sent, close } = await connected();
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
    const table = requestHandlerTableOf(server)!;
    expect(table.has('tools/list')).toBe(true);
    table.set('tools/list', (() => ({ tools: [], replaced: true })) as TableHandler);
    requestDispatchOf(server)!({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    await tick();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 5, result: { tools: [], replaced: true } }]);
    await close();
  });

  it('Server#assertRequestHandlerCapability refuses tools/call on a server that declared no tools, and allows it on one that did', () => {
    expect(() => assertHandlerCapability(new Server({ name: 't', version: '1' }), 'tools/call')).toThrow(/tools/);
    expect(() => assertHandlerCapability(new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } }), 'tools/call')).not.toThrow();
  });

  it("Protocol.prototype.setRequestHandler called on a Server installs without Server's tools/call result check", async () => {
    const { server, sent, close } = await connected();
    setBaseRequestHandler(server, CallToolRequestSchema.pick({ method: true }).loose(), (() => ({ notACallResult: true })) as TableHandler);
    requestDispatchOf(server)!(call(6));
    await tick();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 6, result: { notACallResult: true } }]);
    await close();
  });

  it('InitializeRequestSchema.safeParse is an own writable property, and isInitializeRequest calls it at each call', () => {
    const parse = ownInitializeCheck();
    expect(parse).toBeTypeOf('function');
    const asked: unknown[] = [];
    const current = initializeSchema.safeParse;
    initializeSchema.safeParse = (value, params) => {
      asked.push(value);
      return current(value, params);
    };
    try {
      const message = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      expect(isInitializeRequest(message)).toBe(false);
      expect(asked).toEqual([message]);
    } finally {
      initializeSchema.safeParse = current;
    }
  });

  it('StreamableHTTPServerTransport writes each SSE answer with the writeSSEEvent of its web-standard transport inside, framed as event, id and data', async () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const inner = sseWritingOf(transport);
    expect(inner).toBeInstanceOf(WebStandardStreamableHTTPServerTransport);
    const sdkWrite = (WebStandardStreamableHTTPServerTransport.prototype as unknown as { writeSSEEvent: SseEventWriter }).writeSSEEvent;
    const chunks: Uint8Array[] = [];
    const message = { jsonrpc: '2.0', id: 7, result: { content: [] } } as JSONRPCMessage;
    expect(sdkWrite.call(inner, { enqueue: (chunk: Uint8Array) => chunks.push(chunk) }, new TextEncoder(), message, 'e-1')).toBe(true);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`event: message\nid: e-1\ndata: ${JSON.stringify(message)}\n\n`);

    // The instance's writer, not the prototype's, is what answers a POST.
    const written: JSONRPCMessage[] = [];
    eventsSerialisedOnce(
      transport,
      (answer) => {
        written.push(answer);
        return JSON.stringify(answer);
      },
      true,
    );
    const server = new McpServer({ name: 't', version: '1' });
    await server.connect(transport);
    const listener = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => void transport.handleRequest(req, res, JSON.parse(body)));
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initializeRequest('c', 8)),
      });
      const text = await response.text();
      expect(text).toContain('"id":8');
      expect(written.map((answer) => (answer as { id?: unknown }).id)).toEqual([8]);
    } finally {
      await server.close();
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
