/**
 * Validation helpers with class-validator style messages ("limit must not be greater than 100").
 * Collect failures in a Violations list and call `throwIfAny()`: the 400 body then carries
 * `message` as an array of every failed rule, like a NestJS ValidationPipe.
 */
import { badRequest } from './errors.js';
import { isUuid } from './ids.js';

export class Violations {
  readonly messages: string[] = [];
  add(message: string): void {
    if (!this.messages.includes(message)) this.messages.push(message);
  }
  get any(): boolean {
    return this.messages.length > 0;
  }
  throwIfAny(): void {
    if (this.any) throw badRequest(this.messages);
  }
}

/** A route that checks a single field: `check` adds its rules' messages, thrown at once as the 400 if any failed. */
export function checkOne<T>(check: (v: Violations) => T): T {
  const v = new Violations();
  const value = check(v);
  v.throwIfAny();
  return value;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A path parameter that must be a UUID: 400 `<name> must be a UUID` otherwise. */
export function uuidParam(params: Record<string, string>, name: string): string {
  const value = params[name] ?? '';
  if (!isUuid(value)) throw badRequest([`${name} must be a UUID`]);
  return value;
}

/** Body of a route that expects a JSON object; an absent body counts as `{}`. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw badRequest(['request body must be a JSON object']);
  return body;
}

/** An optional array of objects, each read by `read` at its place (`inputSchema.0`). */
export function objectList<T>(v: Violations, name: string, raw: unknown, read: (item: Record<string, unknown>, at: string) => T): T[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    v.add(`${name} must be an array`);
    return undefined;
  }
  return raw.map((item, i) => {
    const at = `${name}.${i}`;
    if (isPlainObject(item)) return read(item, at);
    v.add(`${at} must be an object`);
    return undefined as T;
  });
}

/** Required non-empty string (blank strings count as empty). */
export function requireString(v: Violations, name: string, value: unknown, opts: { allowBlank?: boolean } = {}): string | undefined {
  if (value === undefined || value === null || value === '') {
    v.add(`${name} should not be empty`);
    if (typeof value !== 'string') v.add(`${name} must be a string`);
    return undefined;
  }
  if (typeof value !== 'string') {
    v.add(`${name} must be a string`);
    return undefined;
  }
  if (!opts.allowBlank && value.trim() === '') {
    v.add(`${name} should not be empty`);
    return undefined;
  }
  return value;
}

export function optionalString(v: Violations, name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    v.add(`${name} must be a string`);
    return undefined;
  }
  return value;
}

export function optionalBoolean(v: Violations, name: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') {
    v.add(`${name} must be a boolean value`);
    return undefined;
  }
  return value;
}

export function oneOf<T extends string>(v: Violations, name: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    v.add(`${name} must be one of the following values: ${allowed.join(', ')}`);
    return undefined;
  }
  return value as T;
}

const INT_RE = /^-?\d+$/;

/** Integer query parameter: returns undefined when absent; records violations otherwise. */
export function queryInt(v: Violations, name: string, raw: string | null, bounds: { min?: number; max?: number } = {}): number | undefined {
  if (raw === null) return undefined;
  if (!INT_RE.test(raw.trim())) {
    v.add(`${name} must be an integer number`);
    return undefined;
  }
  const n = Number(raw.trim());
  if (!Number.isSafeInteger(n)) {
    v.add(`${name} must be an integer number`);
    return undefined;
  }
  if (bounds.min !== undefined && n < bounds.min) v.add(`${name} must not be less than ${bounds.min}`);
  if (bounds.max !== undefined && n > bounds.max) v.add(`${name} must not be greater than ${bounds.max}`);
  return n;
}

/** Array query parameter: comma-separated and/or repeated; blank items dropped. */
export function queryList(query: URLSearchParams, name: string): string[] | undefined {
  const all = query.getAll(name);
  if (all.length === 0) return undefined;
  return all
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
