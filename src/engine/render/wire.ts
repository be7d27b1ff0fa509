import type { CallToolResult, JSONRPCMessage, JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import type { Shaped } from './shape.js';

/** Where a result handed to the SDK keeps its structured content's JSON for the transport (toWire). */
const STRUCTURED_JSON = Symbol('svc-mcp: structuredContent as JSON');

type WireResult = CallToolResult & { [STRUCTURED_JSON]?: string };

/** The structured content as JSON: shaping's own serialisation when it still holds, else made now. */
export function structuredJsonOf(shaped: Shaped): string {
  return shaped.structuredJson ?? JSON.stringify(shaped.result.structuredContent ?? null);
}

/**
 * The result handed to the SDK: its structured content frozen, so that what the transport writes
 * is what was checked, and carrying its JSON, so the transport splices it in rather than
 * serialising it a second time (about 40 µs of a page of 20 conversations). The SDK sends the
 * object it is given; a result built anew carries nothing and is serialised whole.
 */
export function toWire(shaped: Shaped): CallToolResult {
  const { result, structuredJson } = shaped;
  if (structuredJson === undefined || !result.structuredContent) return result;
  Object.freeze(result.structuredContent);
  Object.defineProperty(result, STRUCTURED_JSON, { value: structuredJson });
  return result;
}

/** A JSON-RPC message as one line of JSON, a wire result's structured content spliced in as it was serialised. */
export function messageJson(message: JSONRPCMessage): string {
  const result = 'result' in message ? (message.result as WireResult) : undefined;
  const json = result?.[STRUCTURED_JSON];
  if (json === undefined) return JSON.stringify(message);
  const { structuredContent: _spliced, ...rest } = result!;
  const { result: _result, ...envelope } = message as JSONRPCResultResponse;
  // The result is written last and always has `content`, so the text ends with the two braces that close it and the message.
  const head = JSON.stringify({ ...envelope, result: rest });
  return `${head.slice(0, -2)},"structuredContent":${json}}}`;
}
