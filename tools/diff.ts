import { diffArrays, diffWords, structuredPatch } from 'diff';
import { isRecord } from '../src/engine/output.js';
import { canonicalJson } from '../src/engine/tokens.js';
import type { DiffHunk, DiffLine, PathChange, TextDiff, WordChange } from './results.js';

const CONTEXT_LINES = 2;
const CONTEXT_WORDS = 3;
const MAX_WORD_CHANGES = 12;

/** Line diff of two texts (jsdiff's structured patch) with per-line numbers. */
export function lineDiff(before: string, after: string): DiffHunk[] {
  const patch = structuredPatch('before', 'after', terminated(before), terminated(after), undefined, undefined, { context: CONTEXT_LINES });
  return patch.hunks.map((hunk) => {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    const lines = hunk.lines
      .filter((raw) => !raw.startsWith('\\'))
      .map((raw): DiffLine => {
        const text = raw.slice(1);
        if (raw.startsWith('+')) return { mark: '+', text, newLine: newLine++ };
        if (raw.startsWith('-')) return { mark: '-', text, oldLine: oldLine++ };
        return { mark: ' ', text, oldLine: oldLine++, newLine: newLine++ };
      });
    return { oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, lines };
  });
}

/** An empty text has no lines; any other text ends with a newline so the last line compares like the others. */
function terminated(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

export function wordChanges(before: string, after: string): WordChange[] {
  const parts = diffWords(before, after);
  const changes: WordChange[] = [];
  for (let index = 0; index < parts.length && changes.length < MAX_WORD_CHANGES; index++) {
    if (!parts[index].added && !parts[index].removed) continue;
    const start = index;
    while (index + 1 < parts.length && (parts[index + 1].added || parts[index + 1].removed)) index++;
    const run = parts.slice(start, index + 1);
    const lead = start > 0 ? lastWords(parts[start - 1].value) : '';
    const tail = index + 1 < parts.length ? firstWords(parts[index + 1].value) : '';
    const side = (keep: (part: (typeof run)[number]) => boolean) => `${lead}${run.filter(keep).map((part) => part.value).join('')}${tail}`.trim();
    changes.push({ before: side((part) => !part.added), after: side((part) => !part.removed) });
  }
  return changes;
}

function lastWords(text: string): string {
  const words = text.split(/(?<=\s)/);
  return words.slice(-CONTEXT_WORDS).join('');
}

function firstWords(text: string): string {
  const words = text.split(/(?=\s)/);
  return words.slice(0, CONTEXT_WORDS).join('');
}

export function textDiff(before: string, after: string): TextDiff {
  return { hunks: lineDiff(before, after), words: before === '' ? [] : wordChanges(before, after) };
}

/** Items added to and removed from a list (questions, keywords), compared as JSON. */
export function listChanges(before: unknown[], after: unknown[]): { added: unknown[]; removed: unknown[] } {
  const parts = diffArrays(before.map((item) => JSON.stringify(item)), after.map((item) => JSON.stringify(item)));
  const pick = (keep: (part: (typeof parts)[number]) => boolean) => parts.filter(keep).flatMap((part) => part.value.map((item) => JSON.parse(item) as unknown));
  const added = pick((part) => part.added);
  const removed = pick((part) => part.removed);
  // A reordered item shows as removed and added: only real additions and removals count.
  const key = (item: unknown) => JSON.stringify(item);
  const removedKeys = new Set(removed.map(key));
  const addedKeys = new Set(added.map(key));
  return { added: added.filter((item) => !removedKeys.has(key(item))), removed: removed.filter((item) => !addedKeys.has(key(item))) };
}

/** Every difference between two JSON values, field by field and item by item. */
export function pathDiff(before: unknown, after: unknown, path = ''): PathChange[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => pathDiff(before[key], after[key], path ? `${path}.${key}` : key));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, index) => pathDiff(before[index], after[index], `${path}[${index}]`)).flat();
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (before === undefined) return [{ path, change: 'added', after }];
  if (after === undefined) return [{ path, change: 'removed', before }];
  if (typeof before === 'string' && typeof after === 'string' && (before.includes('\n') || after.includes('\n'))) {
    return [{ path, change: 'changed', hunks: lineDiff(before, after) }];
  }
  return [{ path, change: 'changed', before, after }];
}

export type Quote = (value: unknown) => string;

/** Hunks as unified-diff lines (`@@ -1,2 +1,2 @@`, then `-`, `+` and context lines), each line's text quoted. */
export function renderHunks(hunks: DiffHunk[], quote: Quote, indent = '  '): string[] {
  return hunks.flatMap((hunk) => [
    `${indent}@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    ...hunk.lines.map((line) => `${indent}${line.mark} ${quote(line.text)}`),
  ]);
}

/** Hunks as plain unified-diff text, for results rendered as an outline (the text is marked untrusted as a whole). */
export function unifiedText(hunks: DiffHunk[]): string {
  return hunks.flatMap((hunk) => [`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines.map((line) => `${line.mark}${line.text}`)]).join('\n');
}

/** Whether a field changes, as the API would store it: key order aside, and null the same as absent. */
export function differs(before: unknown, after: unknown): boolean {
  return canonicalJson(before ?? null) !== canonicalJson(after ?? null);
}

/** A text field's value, or empty text when it holds none. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A list field's items, or none when it holds no list. */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
