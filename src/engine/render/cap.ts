import { isRecord } from '../../json.js';
import { listItems, MAX_RENDER_DEPTH, type ShapeOptions } from './shape-options.js';
import type { Body, Renderer } from './text.js';

/**
 * The size cap: a result kept inside its budget, measured on what is sent (the rendered text and
 * the structured JSON), by cutting what matters least first; and values nested too deep cut.
 */

/**
 * A result that is one list of records beside a few other fields (`{articles: [...], notFound}`)
 * is shown like a list tool's: each record on its own, unindented, in its own envelope.
 */
export function recordsField(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  let found: string | undefined;
  for (const key in value) {
    const item = value[key];
    if (!Array.isArray(item) || item.length === 0 || !isRecord(item[0])) continue;
    if (found !== undefined) return undefined;
    found = key;
  }
  return found;
}

export function withItems(value: unknown, field: string, items: unknown[]): unknown {
  return { ...(value as Record<string, unknown>), [field]: items };
}

/** The same value with anything below MAX_RENDER_DEPTH replaced by a marker; the same reference when nothing was cut. */
export function cutDeep(value: unknown, depth: number): unknown {
  if (depth === 0 && !deeperThan(value, MAX_RENDER_DEPTH)) return value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_RENDER_DEPTH) return `[cut: nested deeper than ${MAX_RENDER_DEPTH} levels]`;
  let changed = false;
  const entries = (Array.isArray(value) ? value.entries() : Object.entries(value)) as Iterable<[string | number, unknown]>;
  const copy: Array<[string | number, unknown]> = [];
  for (const [key, item] of entries) {
    const cut = cutDeep(item, depth + 1);
    changed ||= cut !== item;
    copy.push([key, cut]);
  }
  if (!changed) return value;
  return Array.isArray(value) ? copy.map(([, item]) => item) : Object.fromEntries(copy);
}

/** Whether anything sits `levels` or more below the value: a walk that allocates nothing, for the usual shallow result. */
function deeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  // Most entries are scalars: they are passed over here rather than in a call each.
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item === 'object' && item !== null && deeperThan(item, levels - 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null && deeperThan(item, levels - 1)) return true;
  }
  return false;
}

/**
 * Keeps a result inside the budget, measured on what is sent (the rendered text and the
 * structured JSON, whichever is longer): first whole list items are dropped from the end (the
 * note says how many and how to get them), then long strings are cut, then wide values keep
 * their first entries, and last the text itself is cut.
 */
export function capToBudget(value: unknown, itemsField: string | undefined, options: ShapeOptions, renderer: Renderer, notes: string[]): { value: unknown; body: Body; json: string } {
  const cap = options.capChars;
  const measure = (candidate: unknown) => {
    const json = JSON.stringify(candidate ?? null);
    const body = renderer.body(candidate, json);
    return { value: candidate, body, json, size: Math.max(body.length, json.length) };
  };
  let current = measure(value);
  if (current.size <= cap) return current;
  const items = itemsField === undefined ? (Array.isArray(value) ? value : undefined) : listItems(value, itemsField);
  if (items && items.length > 1) {
    const withFirst = (count: number) => (itemsField === undefined ? items.slice(0, count) : withItems(value, itemsField, items.slice(0, count)));
    let low = 1;
    let high = items.length;
    // The largest candidate that fit, kept rather than built and measured again.
    let fitting: ReturnType<typeof measure> | undefined;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      const candidate = measure(withFirst(middle));
      if (candidate.size <= cap) {
        low = middle;
        fitting = candidate;
      } else high = middle - 1;
    }
    current = fitting ?? measure(withFirst(low));
    notes.push(`Result cut to fit the ${Math.round(cap / 4)}-token budget: showing ${low} of ${items.length} items. ${options.list?.more ?? 'Narrow the request to get the rest.'}`);
  }
  if (current.size > cap) {
    const limit = Math.max(200, Math.floor(cap / 20));
    current = measure(cutStrings(current.value, limit));
    notes.push(`Long text fields were cut to ${limit} characters (each cut says how much is missing); request fewer items or one item to read them whole.`);
  }
  for (const width of [50, 10, 3]) {
    if (current.size <= cap) break;
    current = measure(cutWide(current.value, width));
    notes.push(`Lists and objects were cut to their first ${width} entries to fit the budget; read one item at a time for the rest.`);
  }
  if (current.size > cap) {
    current = measure({ cut: `The result is too large to show (more than ${cap} characters even when cut); narrow the request.` });
  }
  return current;
}

/** Long strings cut, marked with ASCII dots: one character beyond Latin-1 would make the text and its JSON two-byte strings, slower to build and encode. */
function cutStrings(value: unknown, limit: number): unknown {
  if (typeof value === 'string') return value.length > limit ? `${value.slice(0, limit)}... [${value.length - limit} more characters cut]` : value;
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, limit));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item, limit)]));
  return value;
}

function cutWide(value: unknown, width: number): unknown {
  if (Array.isArray(value)) {
    const kept = value.slice(0, width).map((item) => cutWide(item, width));
    return value.length > width ? [...kept, `[${value.length - width} more entries cut]`] : kept;
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    const kept = entries.slice(0, width).map(([key, item]) => [key, cutWide(item, width)]);
    if (entries.length > width) kept.push(['_cut', `${entries.length - width} more fields cut`]);
    return Object.fromEntries(kept);
  }
  return value;
}
