import { isRecord } from '../../src/json.js';

/** Reading the records the API returns: finding them in a response, trimming them for compact views, naming their fields in `done` lines. */

/** The records of a list response: a bare array, or the first array of an object that wraps one. */
export function records(response: unknown): Record<string, unknown>[] {
  if (Array.isArray(response)) return response.filter(isRecord);
  if (isRecord(response)) {
    const array = Object.values(response).find(Array.isArray);
    if (array) return (array as unknown[]).filter(isRecord);
  }
  return [];
}

/** The record without its empty (undefined or null) fields. */
export function defined(record: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const key in record) if (record[key] !== undefined && record[key] !== null) kept[key] = record[key];
  return kept;
}

/**
 * Shortens message text in compact views, saying so; the full view has it whole. A cut that saves
 * no more characters than its note costs is not made: the text stays whole. The cut is marked with
 * three dots, not U+2026: one character beyond Latin-1 makes the whole text and its JSON two-byte
 * strings, which cost about a fifth more to build, serialise and encode for every call.
 */
export function shortened(text: unknown, length = 240): unknown {
  if (typeof text !== 'string' || text.length <= length) return text;
  const note = `... [${text.length - length} more characters: view "full"]`;
  return text.length - length > note.length ? `${text.slice(0, length)}${note}` : text;
}

/** A field of a write's response as text, for `done` lines: `?` when the response lacks it. */
export function fieldOf(data: unknown, name: string): string {
  const value = isRecord(data) ? data[name] : undefined;
  return value === undefined || value === null ? '?' : String(value);
}

/** How many items a response's array field holds, for `done` lines. */
export function countOf(data: unknown, name: string): number {
  const value = isRecord(data) ? data[name] : undefined;
  return Array.isArray(value) ? value.length : 0;
}
