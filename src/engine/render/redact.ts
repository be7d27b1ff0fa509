import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../../json.js';
import { MASK, type Redaction } from '../../redaction/redaction.js';
import type { Shaped } from './shape.js';
import { structuredJsonOf } from './wire.js';

const SECRET_NAME = /(authorization|password|secret|token|api[-_]?key|cookie)/i;

/**
 * Secret values a user passed in: `{hide: true, value}` values other than the mask, and plain
 * strings under secret-looking names, including the bare token of a `Bearer <token>` value. A
 * call's result masks them (an API that echoes them back shows stars); its preview does not,
 * since the user must see every value that will be sent.
 */
export function secretsIn(value: unknown, key?: string, found: Set<string> = new Set()): string[] {
  if (Array.isArray(value)) for (const item of value) secretsIn(item, key, found);
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
 * A `{hide: true}` value somewhere in serialised JSON; the pattern runs only where the literal part
 * is. The literal leaves out the opening quote: a search for a mark that starts with `"` stops at
 * every quote of the JSON, and took 6 µs of a page of conversations against 1 µs without it.
 */
const HIDDEN_VALUE = /"hide":\s*true/;
const HIDDEN_MARK = 'hide":';

/**
 * One pass over a whole tool result (text parts, structured content, field names alike): every
 * form the redactions know is masked and, unless `hiddenValues` is false (a preview shows every
 * value it sends), `{hide: true}` values along the way. Several redactions stay apart, so the
 * session key's mask, compiled once, is not compiled again with each call's own secrets.
 */
export function redactResult(shaped: Shaped, redactions: readonly Redaction[], options: { hiddenValues: boolean } = { hiddenValues: true }): Shaped {
  const { result } = shaped;
  // Most results hold no secret at all, which a search finds without walking every field: the text
  // parts as they are, the rest as JSON (the structured part's JSON is the one the cap already made).
  const texts = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  const serialised = [
    structuredJsonOf(shaped),
    ...(result.content.length > texts.length ? [JSON.stringify(result.content.filter((part) => part.type !== 'text'))] : []),
    ...(result._meta ? [JSON.stringify(result._meta)] : []),
  ];
  const hidden = options.hiddenValues && serialised.some((json) => json.includes(HIDDEN_MARK) && HIDDEN_VALUE.test(json));
  const found = redactions.filter((redaction) => [...texts, ...serialised].some((text) => redaction.appears(text)));
  if (!hidden && found.length === 0) return shaped;
  const mask = (text: string) => found.reduce((masked, redaction) => redaction.redact(masked), text);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return mask(item);
    const characters = characterValues(item);
    if (characters && mask(characters.join('')) !== characters.join('')) return maskCharacters(item as unknown[] | Record<string, unknown>);
    if (Array.isArray(item)) return item.map(walk);
    if (isRecord(item)) {
      if (options.hiddenValues && item.hide === true && 'value' in item) return { ...item, value: MASK };
      return Object.fromEntries(Object.entries(item).map(([name, entry]) => [mask(name), walk(entry)]));
    }
    return item;
  };
  // A masked result is built anew: what shaping knew of the old one no longer holds.
  return { result: walk(result) as CallToolResult, escapedThroughout: false };
}

/** The values of an array or object made of single characters (a string spread into one), in order; undefined for anything else. */
function characterValues(item: unknown): string[] | undefined {
  const values = Array.isArray(item) ? item : isRecord(item) ? Object.values(item) : undefined;
  return values && values.length > 1 && values.every((value) => typeof value === 'string' && [...value].length === 1) ? (values as string[]) : undefined;
}

/** An array or object of a secret's characters, each shown as a star: the shape stays, the secret goes. */
function maskCharacters(item: unknown[] | Record<string, unknown>): unknown {
  return Array.isArray(item) ? item.map(() => '*') : Object.fromEntries(Object.keys(item).map((name) => [name, '*']));
}
