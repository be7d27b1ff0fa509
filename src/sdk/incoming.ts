import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../json.js';
import { requestsStraightToDispatch, type Deliver } from './shortcuts.js';

/** Sees messages on their way: each one a client sends before anything else does, and each answer as it leaves. */
export interface MessageObserver {
  /** A message as it arrives; `deliver` takes it the rest of the way, inside whatever context the observer sets. */
  received?(message: JSONRPCMessage, deliver: () => void): void;
  sent?(message: JSONRPCMessage): void;
}

/** A tools/call the server answers itself before the SDK reads it: the result to answer with, or undefined to let it through. */
export type ToolCallScreen = (name: unknown, args: Record<string, unknown>) => CallToolResult | undefined;

export interface IncomingWay {
  /** SVC_SDK_SHORTCUTS: whether a request goes straight to the SDK's dispatch. */
  shortcuts: boolean;
  /** In this order, each around the next: telemetry, then what the session records of its answers. */
  observers: MessageObserver[];
  screenToolCall: ToolCallScreen;
}

type Step = (next: Deliver) => Deliver;

/**
 * Connects `server` to `transport` and lays the way every message from the client takes, in order:
 *
 * 0. The transport reads it: stdio's `BoundedStdioTransport` checks each line with
 *    `jsonRpcMessageOf`; over HTTP, transports/http/mcp.ts reads the body and the SDK's transport parses it.
 *    A check that must see the raw message before any schema copies it (the copy turns an own
 *    `__proto__` key into a prototype) runs there, on stdio before `jsonRpcMessageOf` and over
 *    HTTP on the body; a check of the parsed message is one more step below, before `screen`.
 * 1. `observe`: the observers see it first (telemetry opens a span and runs the rest inside it).
 * 2. `screen`: a tools/call the engine refuses on its raw arguments is answered here, as a tool error.
 * 3. `dispatch`: a request goes straight to the SDK's dispatch, anything else to the SDK's own
 *    delivery, which `server.connect` installed as the transport's `onmessage`.
 *
 * Answers leave through `transport.send`, which the observers see in their order.
 */
export async function connectServer(server: McpServer, transport: Transport, way: IncomingWay): Promise<void> {
  await server.connect(transport);
  const sdkDelivery = transport.onmessage;
  if (!sdkDelivery) throw new Error('internal: the MCP SDK connected without a message handler on the transport');
  const steps: Step[] = [(next) => observe(way.observers, next), (next) => screen(transport, way.screenToolCall, next), (next) => requestsStraightToDispatch(server.server, next, way.shortcuts)];
  transport.onmessage = steps.reduceRight<Deliver>((next, step) => step(next), sdkDelivery);
  const send = transport.send.bind(transport);
  const watching = way.observers.filter((observer) => observer.sent);
  if (watching.length === 0) return;
  transport.send = (message, options) => {
    for (const observer of watching) observer.sent!(message);
    return send(message, options);
  };
}

function observe(observers: MessageObserver[], deliver: Deliver): Deliver {
  return observers.reduceRight<Deliver>((next, observer) => (observer.received ? (message, extra) => observer.received!(message, () => next(message, extra)) : next), deliver);
}

function screen(transport: Transport, screenToolCall: ToolCallScreen, deliver: Deliver): Deliver {
  return (message, extra) => {
    if ('method' in message && message.method === 'tools/call' && 'id' in message && isRecord(message.params?.arguments)) {
      const refusal = screenToolCall(message.params.name, message.params.arguments);
      if (refusal) {
        void transport.send({ jsonrpc: '2.0', id: message.id, result: refusal }).catch(() => undefined);
        return;
      }
    }
    deliver(message, extra);
  };
}

/** Hands `message` to the server connected to `transport` as if its client had sent it (a cancellation for a client that went away). */
export function deliverAsReceived(transport: Transport, message: JSONRPCMessage): void {
  transport.onmessage?.(message);
}
