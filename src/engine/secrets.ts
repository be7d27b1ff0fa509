import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TextRedactor } from '../log.js';
import { isRecord, structuredJsonOf } from './output.js';

export const MASK = '********';
const SECRET_NAME = /(authorization|password|secret|token|api[-_]?key|cookie)/i;

/**
 * Secret values a user passed in: `{hide: true, value}` values other than the mask, and plain
 * strings under secret-looking names, including the bare token of a `Bearer <token>` value. A
 * call's result masks them (an API that echoes them back shows stars); its preview does not,
 * since the user must see every value that will be sent.
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
 * Finds and masks secrets in text. `appears` is the fast "nothing to mask" test every result
 * passes: a few patterns that V8 can search by skipping (a literal start, fixed-width steps; one
 * alternation of all of them would be tried at every position, several times slower), each
 * matching at least the part of a form that `pattern` masks. `pattern` runs only after a hit.
 */
export class Redaction implements TextRedactor {
  private readonly pattern: RegExp;

  constructor(
    private readonly checks: readonly RegExp[],
    patternSources: readonly string[],
  ) {
    this.pattern = new RegExp(patternSources.join('|'), 'g');
  }

  appears(text: string): boolean {
    return this.checks.some((check) => check.test(text));
  }

  redact(text: string): string {
    return this.appears(text) ? text.replace(this.pattern, MASK) : text;
  }

  /** One redaction for both: the session key's and the secrets a caller passed. */
  and(other: Redaction): Redaction {
    return new Redaction([...this.checks, ...other.checks], [this.pattern.source, other.pattern.source]);
  }
}

/** Separators a key may be split by, one between any two characters. */
const SPLIT = '[ .\\-]?';

/**
 * Every form the server can compute from its API key, found in any case:
 * - as given, bare (without `svc_`), percent-encoded (any characters, upper or lower hex) and
 *   JSON-escaped (`\u0073`, also as serialised JSON shows it, `\\u0073`), mixed freely;
 * - split by spaces, dashes or dots between characters;
 * - base64 and base64url (standard or URL alphabet, with or without padding), also inside a
 *   longer encoded string: at each of the three byte alignments, the part of the encoding that
 *   the key's bytes alone decide;
 * - hex, either case.
 * The bare key's forms are what the checks look for, so a prefix changed or cut off still matches;
 * the pattern masks the prefix too when it is there. Computed once per session.
 */
export function keyRedaction(apiKey: string): Redaction {
  const prefix = /^svc_/i.exec(apiKey)?.[0] ?? '';
  const bare = apiKey.slice(prefix.length);
  // Without its prefix, a very short remainder could match ordinary text: the whole key is the unit then.
  const [head, body] = bare.length >= 8 ? [prefix, bare] : ['', apiKey];
  const escapes = chars(body).map(escapedChar).join('');
  const split = chars(body).map(anyCase).join(SPLIT);
  const hex = anyCase(Buffer.from(body).toString('hex'));
  const base64 = base64Forms(body);
  const checks = [escapes, split, hex, ...base64].map((source) => new RegExp(source));
  const optional = (source: string) => (head ? `(?:${source})?` : '');
  return new Redaction(checks, [
    `${optional(chars(head).map(escapedChar).join(''))}${escapes}`,
    `${optional(chars(head).map((char) => `${anyCase(char)}${SPLIT}`).join(''))}${split}`,
    `${optional(anyCase(Buffer.from(head).toString('hex')))}${hex}`,
    // Longest first: the whole key's encodings, then the parts its bare body alone decides.
    ...(head ? base64Forms(head + body, true) : []),
    ...base64Forms(body, true),
  ]);
}

/**
 * The secrets a caller passed: as given in any case, percent-encoded and JSON-escaped. Not split
 * or re-encoded: such a secret may be short, and those forms of it would match ordinary text.
 */
export function secretRedaction(secrets: readonly string[]): Redaction | undefined {
  if (secrets.length === 0) return undefined;
  const sources = [...new Set(secrets)].sort((a, b) => b.length - a.length).map((secret) => chars(secret).map(escapedChar).join(''));
  return new Redaction([new RegExp(sources.join('|'))], sources);
}

function chars(text: string): string[] {
  return Array.from(text);
}

/** One character as itself in any case, percent-encoded (UTF-8, either hex case) or JSON-escaped (`\uXXXX`, its backslash maybe escaped again). */
function escapedChar(char: string): string {
  const forms = new Set([anyCase(escapeRegExp(char)), anyCase(percentEncoded(char))]);
  const units = Array.from({ length: char.length }, (_, index) => char.charCodeAt(index).toString(16).padStart(4, '0'));
  forms.add(units.map((unit) => `\\\\{1,2}u${anyCase(unit)}`).join(''));
  const json = JSON.stringify(char).slice(1, -1);
  if (json !== char) forms.add(`\\\\?${escapeRegExp(json)}`);
  return `(?:${[...forms].join('|')})`;
}

function percentEncoded(char: string): string {
  return [...Buffer.from(char)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

/**
 * The base64 text that `text`'s own bytes decide wherever it sits in a longer encoded string: at
 * each of the three alignments, its bytes from there on in whole groups of three. Standard and URL
 * alphabets in one pattern. `whole` adds the encoding of `text` alone, padded or not, first.
 */
function base64Forms(text: string, whole = false): string[] {
  const bytes = Buffer.from(text);
  const inner = [0, 1, 2].map((skip) => bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3).toString('base64'));
  const forms = inner.filter((form) => form.length >= 8).map(eitherAlphabet);
  if (whole) forms.unshift(`${eitherAlphabet(bytes.toString('base64').replace(/=+$/, ''))}={0,2}`);
  return forms;
}

function eitherAlphabet(base64: string): string {
  return base64.replace(/\+/g, '[+-]').replace(/\//g, '[/_]');
}

function anyCase(text: string): string {
  return text.replace(/[a-z]/gi, (char) => `[${char.toLowerCase()}${char.toUpperCase()}]`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** A `{hide: true}` value somewhere in serialised JSON. */
const HIDDEN_VALUE = /"hide":\s*true/;

/**
 * One pass over a whole tool result (text parts, structured content, field names alike): every
 * form the redaction knows is masked and, unless `hiddenValues` is false (a preview shows every
 * value it sends), `{hide: true}` values along the way.
 */
export function redactSecrets(result: CallToolResult, redaction: Redaction, options: { hiddenValues: boolean } = { hiddenValues: true }): CallToolResult {
  // Most results hold no secret at all, which a search finds without walking every field: the text
  // parts as they are, the rest as JSON (the structured part's JSON is the one the cap already made).
  const texts = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  const serialised = [structuredJsonOf(result), ...(result.content.length > texts.length ? [JSON.stringify(result.content.filter((part) => part.type !== 'text'))] : [])];
  const hidden = options.hiddenValues && serialised.some((json) => HIDDEN_VALUE.test(json));
  if (!hidden && ![...texts, ...serialised].some((text) => redaction.appears(text))) return result;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return redaction.redact(item);
    if (Array.isArray(item)) return item.map(walk);
    if (isRecord(item)) {
      if (options.hiddenValues && item.hide === true && 'value' in item) return { ...item, value: MASK };
      return Object.fromEntries(Object.entries(item).map(([name, entry]) => [redaction.redact(name), walk(entry)]));
    }
    return item;
  };
  return walk(result) as CallToolResult;
}
