import { diffArrays, structuredPatch } from 'diff';
import { canonicalJson, isRecord } from '../../src/json.js';
import type { DiffHunk, DiffLine, Passage, PathChange, TextDiff } from '../../src/views/results.js';

const CONTEXT_LINES = 2;

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

/** Where one sentence ends and the next begins: after `.`, `!` or `?` and the spaces that follow. */
const SENTENCE_BREAK = /(?<=[.!?])\s+(?=\S)/;

/**
 * A text as the sentences a reader takes in one at a time: each line cut after its sentence ends;
 * blank lines hold none, and trailing spaces are not part of a sentence (a change to them alone
 * shows in the line diff).
 */
function sentencesOf(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.split(SENTENCE_BREAK))
    .map((sentence) => sentence.trimEnd())
    .filter((sentence) => sentence.trim() !== '');
}

/**
 * The changed sentences of a text, whole, each run with the unchanged sentence on either side:
 * a one-word edit in a long paragraph reads as the sentence it changes, not as a fragment or as
 * the whole paragraph twice.
 */
export function passageDiff(before: string, after: string): Passage[] {
  const old = sentencesOf(before);
  const passages: Passage[] = [];
  let current: Passage | undefined;
  let index = 0;
  for (const part of diffArrays(old, sentencesOf(after))) {
    if (!part.added && !part.removed) {
      if (current) passages.push({ ...current, trailing: old[index] });
      current = undefined;
      index += part.value.length;
      continue;
    }
    current ??= { removed: [], added: [], ...(index > 0 ? { leading: old[index - 1] } : {}) };
    if (part.removed) {
      current.removed.push(...part.value);
      index += part.value.length;
    } else {
      current.added.push(...part.value);
    }
  }
  if (current) passages.push(current);
  return passages;
}

export function textDiff(before: string, after: string): TextDiff {
  return { hunks: lineDiff(before, after), passages: passageDiff(before, after) };
}

/** Items added to and removed from a list (questions, keywords), compared as JSON. */
export function listChanges(before: unknown[], after: unknown[]): { added: unknown[]; removed: unknown[] } {
  const parts = diffArrays(
    before.map((item) => JSON.stringify(item)),
    after.map((item) => JSON.stringify(item)),
  );
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

export type { Quote } from '../../src/engine/define.js';

/** Hunks as unified-diff lines (`@@ -1,2 +1,2 @@`, then `-`, `+` and context lines), each line's text through `text` (a quote, or a block's escape). */
export function renderHunks(hunks: DiffHunk[], text: (value: unknown) => string, indent = '  '): string[] {
  return hunks.flatMap((hunk) => [`${indent}@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines.map((line) => `${indent}${line.mark} ${text(line.text)}`)]);
}

/**
 * Passages as diff lines: the sentence before, `-` removed and `+` added sentences, the sentence
 * after; `…` between passages apart from each other. Each sentence through `text`.
 */
export function renderPassages(passages: Passage[], text: (value: unknown) => string, indent = '  '): string[] {
  const lines: string[] = [];
  let previous: Passage | undefined;
  for (const passage of passages) {
    const joined = previous?.trailing !== undefined && previous.trailing === passage.leading;
    if (previous && !joined) lines.push(`${indent}…`);
    if (passage.leading !== undefined && !joined) lines.push(`${indent}  ${text(passage.leading)}`);
    lines.push(...passage.removed.map((sentence) => `${indent}- ${text(sentence)}`), ...passage.added.map((sentence) => `${indent}+ ${text(sentence)}`));
    if (passage.trailing !== undefined) lines.push(`${indent}  ${text(passage.trailing)}`);
    previous = passage;
  }
  return lines;
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
