/** A /v2 request as `sandbox.requests` and `GET /__sandbox/requests` show it: every key redacted. */
import type { IncomingMessage } from 'node:http';
import type { RecordedRequest } from '../handle.js';
import type { KeyRecord } from '../types.js';
import { KEY_QUERY_PARAMS } from './keys.js';

/** `key`: the key the bearer token named, if any. The status is set once the request is answered. */
export function recordOf(req: IncomingMessage, url: URL, at: number, method: string, body: unknown, key: KeyRecord | undefined): RecordedRequest {
  return {
    at,
    method,
    path: url.pathname,
    query: queryRecord(url.searchParams),
    headers: redactHeaders(req, key),
    body,
    status: 0,
    keyName: key ? key.name : null,
  };
}

function redactHeaders(req: IncomingMessage, key: KeyRecord | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (out.authorization !== undefined) out.authorization = `Bearer <redacted:${key ? key.name : 'unknown'}>`;
  if (out['x-api-key'] !== undefined) out['x-api-key'] = '<redacted>';
  return out;
}

function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const all = params.getAll(name).map((v) => (KEY_QUERY_PARAMS.includes(name) ? '<redacted>' : v));
    out[name] = all.length === 1 ? all[0] : all;
  }
  return out;
}
