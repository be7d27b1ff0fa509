import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type CreateTaskResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { isRecord } from '../json.js';
import { assertHandlerCapability, initializeSchema, ownInitializeCheck, requestDispatchOf, requestHandlerTableOf, setBaseRequestHandler, sseWritingOf } from './internals.js';
import type { InitializeCheck, TableHandler } from './internals.js';

/**
 * Work the SDK does on every message or with every server that nothing here reads, spared. Each
 * shortcut takes `on` (SVC_SDK_SHORTCUTS): off, the SDK does its own work throughout. Each
 * stands aside when the member it needs is not there (`internals.ts`).
 */

/**
 * The SDK's checker of elicitation answers, built for the first answer to check rather than with
 * every server: building it (Ajv and its formats) took about 5 ms of a cold start and 1.6 ms of
 * every HTTP session, and most sessions never elicit. One per session, as the SDK's own default.
 * Off: none is given, and the SDK builds its own with the server.
 */
export function validatorOnFirstUse(on: boolean): jsonSchemaValidator | undefined {
  if (!on) return undefined;
  let validator: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (validator ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

/**
 * A message read off a wire (stdio), checked as the SDK's transports check it: a request in the
 * plain form (`isPlainRequest`) as it is, any other through the SDK's message schema; undefined
 * when it is no JSON-RPC message. Off: always the schema.
 */
export function jsonRpcMessageOf(raw: unknown, on: boolean): JSONRPCMessage | undefined {
  if (on && isPlainRequest(raw)) return raw;
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

export type Deliver = NonNullable<Transport['onmessage']>;

/**
 * The SDK's delivery asks of every incoming message whether it is a response before it asks
 * whether it is a request: two zod parses meant to fail on every call, whose issues and errors cost
 * about 40 µs a call alone and 85 µs under 50 clients. A message that parses as a request is
 * neither response (all three schemas are strict, and only a request has `method`), so it goes
 * straight to the dispatch the SDK's delivery would reach, `_onrequest`, as does a request in the
 * plain form (`isPlainRequest`) without that parse; every other message takes the SDK's way. The
 * SDK's delivery first calls whatever `onmessage` the transport had before `connect`: this
 * server's transports have none. Without `_onrequest` every message takes the SDK's way. With
 * `initializeChecksByMethod` for HTTP, a call fails no zod parse at all on its way in or out,
 * which a test counts.
 */
export function requestsStraightToDispatch(server: Server, deliver: Deliver, on: boolean): Deliver {
  const dispatch = on ? requestDispatchOf(server) : undefined;
  if (!dispatch) return deliver;
  return (message, extra) => (isPlainRequest(message) || isJSONRPCRequest(message) ? dispatch(message, extra) : deliver(message, extra));
}

const PLAIN_REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PLAIN_CALL_PARAMS = new Set(['name', 'arguments', '_meta']);

/**
 * Whether a message is a JSON-RPC request in the form nearly every request takes, one the SDK's
 * request schema accepts and gives back as it is: `jsonrpc` "2.0", a string or safe-integer `id`, a
 * string `method` and, if any, object `params` without an own `__proto__` whose `_meta` holds at
 * most a progress token. The SDK asks its zod schemas the same question several times on a call's
 * way in (the stdio transport, the dispatch, the tools/call handler), and though each parse takes
 * about a microsecond in a loop, each took 10 to 20 µs of a call in the server, run once a call
 * among everything else. Any other form takes the SDK's parse. Property tests hold this to the
 * SDK's answer.
 */
export function isPlainRequest(value: unknown): value is JSONRPCRequest {
  if (!isRecord(value) || value.jsonrpc !== '2.0' || typeof value.method !== 'string' || !isIdOrToken(value.id)) return false;
  for (const key in value) if (!PLAIN_REQUEST_KEYS.has(key)) return false;
  // The SDK's parse copies params, and a copy turns an own `__proto__` field (JSON.parse makes one) into the copy's prototype.
  return value.params === undefined || (isRecord(value.params) && !Object.hasOwn(value.params, '__proto__') && isPlainMeta(value.params._meta));
}

/** A tools/call request in that form whose params are a string `name`, object `arguments` and a plain `_meta`, which the SDK's tools/call schema accepts as it is. */
function isPlainToolCall(request: unknown): request is CallToolRequest {
  if (!isPlainRequest(request) || request.method !== 'tools/call' || request.params === undefined) return false;
  const { name, arguments: args } = request.params;
  if (typeof name !== 'string' || (args !== undefined && (!isRecord(args) || Object.hasOwn(args, '__proto__')))) return false;
  for (const key in request.params) if (!PLAIN_CALL_PARAMS.has(key)) return false;
  return true;
}

/** Request ids and progress tokens: a string or an integer, as the SDK's schemas take them. */
function isIdOrToken(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

function isPlainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isRecord(meta)) return false;
  for (const key in meta) if (key !== 'progressToken') return false;
  return meta.progressToken === undefined || isIdOrToken(meta.progressToken);
}

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
export type ToolCallHandler = (request: CallToolRequest, extra: CallExtra) => CallToolResult | CreateTaskResult | Promise<CallToolResult | CreateTaskResult>;

/** What the base protocol would check of a tools/call before the handler where the SDK's handler table is not there: its method. */
const TOOL_CALL_METHOD = CallToolRequestSchema.pick({ method: true }).loose();

/**
 * Installs the tools/call handler without the wrapper `Server` puts around it, which parses every
 * request twice and then parses and copies every result against the result schema: this engine
 * builds every result itself, in the shapes its tests check. It goes straight into the SDK's
 * table of handlers by method, which the dispatch reads, rather than through the base protocol's
 * `setRequestHandler`, whose wrapper parses the request once more only to check its method, the
 * key it was found by. A request in the plain form (`isPlainRequest`) is taken as it is, any other
 * parsed once, and one that does not parse is refused as the SDK refuses it (-32602, "Invalid
 * tools/call request"). Without the table the base protocol installs it. Off: the SDK's own
 * `setRequestHandler`, wrapper and result check included.
 */
export function setToolCallHandler(server: Server, handler: ToolCallHandler, on: boolean): void {
  if (!on) {
    server.setRequestHandler(CallToolRequestSchema, handler);
    return;
  }
  const handleCall = (request: unknown, extra: CallExtra) => {
    if (isPlainToolCall(request)) return handler(request, extra);
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call request: ${parsed.error.message}`);
    return handler(parsed.data, extra);
  };
  const table = requestHandlerTableOf(server);
  if (!table) {
    setBaseRequestHandler(server, TOOL_CALL_METHOD, handleCall as TableHandler);
    return;
  }
  assertHandlerCapability(server, 'tools/call');
  table.set('tools/call', handleCall as TableHandler);
}

let initializeByMethod = false;

/**
 * The Streamable HTTP transport asks twice of every message it receives whether it is an
 * initialize, by a zod parse against the initialize schema. On every call both fail, and a failed
 * parse builds its issues, their messages and an error object: about 90 µs a call under 50
 * clients, some 6 % of the server's CPU. That schema's method is the literal "initialize", so an
 * object with any other method cannot pass it: such a message fails at once, with the failure the
 * schema gives for a wrong method alone (built once; the SDK reads only `success`). Anything else
 * is parsed whole as before. A property test holds the two to the same answer. The schema is the
 * whole process's, so this is installed once, by the first HTTP server that starts with it on.
 */
export function initializeChecksByMethod(on: boolean): void {
  const parse = on && !initializeByMethod ? ownInitializeCheck() : undefined;
  if (!parse) return;
  let wrongMethod: ReturnType<InitializeCheck> | undefined;
  const otherMethod = (value: unknown) => isRecord(value) && value.method !== 'initialize';
  initializeSchema.safeParse = (value, params) => (otherMethod(value) ? (wrongMethod ??= parse(WRONG_METHOD_ONLY)) : parse(value, params));
  initializeByMethod = true;
}

/** A whole initialize but for its method: what the schema answers for a wrong method alone. */
const WRONG_METHOD_ONLY = { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'client', version: '1' } } };

/**
 * The Streamable HTTP transport writes each answer as an SSE event of `JSON.stringify(message)`;
 * here it writes `serialise(message)`, which may reuse JSON already made (the engine's
 * `messageJson` does not serialise a shaped result's structured content a second time). The event
 * is framed as the SDK frames it, and a test compares the bytes with the SDK's own.
 */
export function eventsSerialisedOnce(transport: StreamableHTTPServerTransport, serialise: (message: JSONRPCMessage) => string, on: boolean): void {
  const inner = on ? sseWritingOf(transport) : undefined;
  if (!inner) return;
  inner.writeSSEEvent = (controller, encoder, message, eventId) => {
    try {
      controller.enqueue(encoder.encode(`event: message\n${eventId ? `id: ${eventId}\n` : ''}data: ${serialise(message)}\n\n`));
      return true;
    } catch (error) {
      inner.onerror?.(error as Error);
      return false;
    }
  };
}
