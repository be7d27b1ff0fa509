import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { InitializeRequestSchema, type JSONRPCMessage, type JSONRPCRequest, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/**
 * Every member of `@modelcontextprotocol/sdk` this server reaches past its public API, named as
 * the SDK in use (1.32.2) names it. Nothing outside `src/sdk/` touches one
 * (test/unit/sdk-boundary.test.ts holds the rest of the code to that), and
 * test/unit/sdk-internals.test.ts checks what each one is and does, so a release that changes
 * one fails a test before it fails a user. Each accessor answers undefined when its member is
 * missing or of another kind, and the shortcut that needs it then stands aside (`shortcuts.ts`).
 */

/** `Protocol#_onrequest(request, extra)`: where the SDK's delivery sends a message it has told apart as a request. */
export type RequestDispatch = (request: JSONRPCRequest, extra?: MessageExtraInfo) => void;

export function requestDispatchOf(server: Server): RequestDispatch | undefined {
  const dispatch = (server as unknown as { _onrequest?: unknown })._onrequest;
  return typeof dispatch === 'function' ? (dispatch.bind(server) as RequestDispatch) : undefined;
}

/** A handler as `Protocol#_requestHandlers` holds it: the request as received, the extra the dispatch builds; its value is the result sent. */
export type TableHandler = (request: unknown, extra: never) => unknown;

/** `Protocol#_requestHandlers`: handlers by method, which the dispatch reads for each request. */
export function requestHandlerTableOf(server: Server): Map<string, TableHandler> | undefined {
  const table = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  return table instanceof Map ? (table as Map<string, TableHandler>) : undefined;
}

/** `Server#assertRequestHandlerCapability(method)` (protected): throws when the server did not declare the capability a method needs. */
export function assertHandlerCapability(server: Server, method: string): void {
  (server as unknown as { assertRequestHandlerCapability(method: string): void }).assertRequestHandlerCapability(method);
}

/** `Protocol.prototype.setRequestHandler` called on a `Server`: the base protocol's install, without the wrapper `Server` puts around a tools/call handler. */
export function setBaseRequestHandler(server: Server, schema: unknown, handler: TableHandler): void {
  Protocol.prototype.setRequestHandler.call(server, schema as never, handler as never);
}

/** The initialize schema's `safeParse`, as the SDK's `isInitializeRequest` calls it. */
export type InitializeCheck = (value: unknown, params?: unknown) => { success: boolean };

/** `InitializeRequestSchema.safeParse`, an own writable property of the schema object the whole SDK shares. */
export const initializeSchema = InitializeRequestSchema as unknown as { safeParse: InitializeCheck };

export function ownInitializeCheck(): InitializeCheck | undefined {
  const descriptor = Object.getOwnPropertyDescriptor(initializeSchema, 'safeParse');
  return descriptor?.writable && typeof descriptor.value === 'function' ? (descriptor.value as InitializeCheck) : undefined;
}

/** `WebStandardStreamableHTTPServerTransport#writeSSEEvent(controller, encoder, message, eventId)`: frames one answer as an SSE event. */
export type SseEventWriter = (controller: { enqueue(chunk: Uint8Array): void }, encoder: { encode(text: string): Uint8Array }, message: JSONRPCMessage, eventId?: string) => boolean;

export interface SseWriting {
  writeSSEEvent: SseEventWriter;
  onerror?: (error: Error) => void;
}

/** `StreamableHTTPServerTransport#_webStandardTransport`: the web-standard transport inside the Node one, which writes the events. */
export function sseWritingOf(transport: StreamableHTTPServerTransport): SseWriting | undefined {
  const inner = (transport as unknown as { _webStandardTransport?: Partial<SseWriting> })._webStandardTransport;
  return typeof inner?.writeSSEEvent === 'function' ? (inner as SseWriting) : undefined;
}
