import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRecord, structuredJsonOf } from './output.js';

export const MASK = '********';
const SECRET_NAME = /(authorization|password|secret|token|api[-_]?key|cookie)/i;

/**
 * For previews: values marked sensitive (`{hide: true, value}`) and plain strings under
 * secret-looking names (Authorization, token, ...) are shown as the mask.
 */
export function maskSecrets(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item));
  if (isRecord(value)) {
    if (value.hide === true && 'value' in value) return { ...value, value: MASK };
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, maskSecrets(item, name)]));
  }
  if (typeof value === 'string' && key && SECRET_NAME.test(key) && value !== MASK) return MASK;
  return value;
}

/**
 * Secret values a user passed in: `{hide: true, value}` values other than the mask, and plain
 * strings under secret-looking names, including the bare token of a `Bearer <token>` value.
 */
export function secretsIn(value: unknown, key?: string, found: Set<string> = new Set()): string[] {
  if (Array.isArray(value)) value.forEach((item) => secretsIn(item, key, found));
  else if (isRecord(value)) {
    if (value.hide === true && 'value' in value) addSecret(found, value.value);
    else for (const [name, item] of Object.entries(value)) secretsIn(item, name, found);
  } else if (key && SECRET_NAME.test(key)) addSecret(found, value);
  return [...found];
}

function addSecret(found: Set<string>, value: unknown): void {
  if (typeof value !== 'string' && typeof value !== 'number') return;
  const text = String(value);
  if (text === MASK || text.length < 4) return;
  found.add(text);
  const bearer = /^\s*(?:bearer|basic|token)\s+(\S{4,})\s*$/i.exec(text);
  if (bearer) found.add(bearer[1]);
}

/**
 * Every form in which a secret can come back: as given, URL-encoded (with `_` and `-` encoded
 * too), JSON-escaped, and for the API key also without its `svc_` prefix (when what remains is
 * long enough to be unmistakable). Matching is case-insensitive, so case changes do not help.
 */
export function secretForms(secret: string, options: { apiKey?: boolean } = {}): string[] {
  const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  forms.add(encodeURIComponent(secret).replace(/[_\-.!~*'()]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`));
  if (options.apiKey) {
    const body = secret.replace(/^svc_/i, '');
    if (body.length >= 8) secretForms(body).forEach((form) => forms.add(form));
  }
  return [...forms].filter((form) => form.length >= 4);
}

/** A `{hide: true}` value somewhere in serialised JSON. */
const HIDDEN_VALUE = /"hide":\s*true/;

/**
 * One pass over a whole tool result (text parts, structured content, field names alike): every
 * form of every secret is masked, and `{hide: true}` values along the way.
 */
export function redactSecrets(result: CallToolResult, secrets: readonly string[]): CallToolResult {
  if (secrets.length === 0) return result;
  const escaped = [...new Set(secrets)].sort((a, b) => b.length - a.length).map((secret) => secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // Most results hold no secret at all, which a search finds without walking every field: the text
  // parts as they are, the rest as JSON, which holds the JSON-escaped forms. V8 caches a compiled
  // pattern by its source, so building it per call costs little.
  const source = escaped.join('|');
  const found = new RegExp(source, 'i');
  const texts = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  const serialised = [structuredJsonOf(result), JSON.stringify({ ...result, content: result.content.filter((part) => part.type !== 'text'), structuredContent: undefined })];
  if (![...texts, ...serialised].some((text) => found.test(text)) && !serialised.some((json) => HIDDEN_VALUE.test(json))) return result;
  const pattern = new RegExp(source, 'gi');
  const mask = (text: string) => text.replace(pattern, MASK);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return mask(item);
    if (Array.isArray(item)) return item.map(walk);
    if (isRecord(item)) {
      if (item.hide === true && 'value' in item) return { ...item, value: MASK };
      return Object.fromEntries(Object.entries(item).map(([name, entry]) => [mask(name), walk(entry)]));
    }
    return item;
  };
  return walk(result) as CallToolResult;
}
