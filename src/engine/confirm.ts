import type { ConfirmMode } from '../config.js';
import type { ApiRequest } from '../http/client.js';
import { encodeQuery } from '../http/client.js';
import { isRecord } from './output.js';
import type { ToolDefinition } from './define.js';

export function needsConfirmation(tool: ToolDefinition, mode: ConfirmMode): boolean {
  if (tool.scope === 'read' || mode === 'none') return false;
  if (mode === 'writes') return true;
  return Boolean(tool.destructive || tool.openWorld);
}

const SECRET_KEY = /(authorization|password|secret|token|api[-_]?key|cookie)/i;
const MASK = '********';

/**
 * Values the user marked sensitive (`{hide: true, value}`) and header-like secrets are never
 * shown back, in a preview or anywhere else.
 */
export function maskSecrets(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item));
  if (isRecord(value)) {
    if (value.hide === true && 'value' in value) return { ...value, value: MASK };
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, maskSecrets(item, name)]));
  }
  if (typeof value === 'string' && key && SECRET_KEY.test(key) && value !== MASK) return MASK;
  return value;
}

/** Exactly what will be sent, as the user reads it: method, path with query, and the JSON body. */
export function describeRequest(request: Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'>): string {
  const line = `${request.method} ${request.path}${decodeURIComponent(encodeQuery(request.query))}`;
  if (request.body === undefined) return line;
  return `${line}\n${JSON.stringify(maskSecrets(request.body), null, 2)}`;
}
