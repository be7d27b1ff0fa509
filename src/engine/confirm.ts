import type { ConfirmMode } from '../config.js';
import type { ApiRequest } from '../http/client.js';
import { encodeQuery } from '../http/client.js';
import { maskSecrets } from './secrets.js';
import type { ToolDefinition } from './define.js';

export function needsConfirmation(tool: ToolDefinition, mode: ConfirmMode): boolean {
  if (tool.scope === 'read' || mode === 'none') return false;
  if (mode === 'writes') return true;
  return Boolean(tool.destructive || tool.openWorld);
}

/** Exactly what will be sent, as the user reads it: method, path with query, and the JSON body. */
export function describeRequest(request: Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'>): string {
  const line = `${request.method} ${request.path}${decodeURIComponent(encodeQuery(request.query))}`;
  if (request.body === undefined) return line;
  return `${line}\n${JSON.stringify(maskSecrets(request.body), null, 2)}`;
}
