/** Helpers shared by the agent-configuration and quality groups (actions, rules, replays, refine, testing, tags). */
import { z } from 'zod';
import { isRecord } from '../src/engine/output.js';
import { UNTRUSTED_TEXT } from './common.js';

export const MASK = '********';
const SECRET_NAME = /(authorization|password|secret|token|api[-_]?key|cookie)/i;

/** Third-party text of these groups: customer API responses, replayed answers, refine reasoning. */
export const CONFIG_UNTRUSTED = [...UNTRUSTED_TEXT, 'response', 'oldAnswer', 'newAnswer'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/**
 * Secret values a user passed in: `{hide: true, value}` values other than the mask, and plain
 * strings under secret-looking names (Authorization, token, ...), including the bare token of a
 * `Bearer <token>` value.
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
 * Masks what must never be shown back: `{hide: true}` values, and every occurrence of a secret
 * the user passed in (longest first), wherever the API may have echoed it.
 */
export function redactSecrets(value: unknown, secrets: readonly string[]): unknown {
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return ordered.reduce((text, secret) => text.split(secret).join(MASK), item);
    if (Array.isArray(item)) return item.map(walk);
    if (isRecord(item)) {
      if (item.hide === true && 'value' in item) return { ...item, value: MASK };
      return Object.fromEntries(Object.entries(item).map(([name, entry]) => [name, walk(entry)]));
    }
    return item;
  };
  return walk(value);
}

/** Result transform of tools whose input may carry secrets. */
export function withoutSecrets(response: unknown, input: unknown): unknown {
  return redactSecrets(response, secretsIn(input));
}

/** Non-blank text: blank strings count as empty. */
export function nonBlank(description: string) {
  return z.string().refine((text) => text.trim().length > 0, 'must not be empty or blank').describe(description);
}
