import { open, mkdir, realpath } from 'node:fs/promises';
import type { WriteStream } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ToolFailure } from '../../src/engine/errors.js';
import { isRecord } from '../../src/engine/output.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** Non-blank text: blank strings count as empty. */
export function nonBlank(description?: string) {
  const text = z.string().refine((value) => value.trim().length > 0, 'must not be empty or blank');
  return description ? text.describe(description) : text;
}

export const channelEnum = z.enum(['chat', 'email']);

/** Source values of conversations: the documented ones plus lowercase names of connected platforms. */
export const conversationSource = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*$/, 'must be a lowercase source name such as api, widget, ui, standalone, testsuite, replay or a connected platform');

/** Text filters of list conversations: at most 100 non-blank characters, no `%`, `_` or control characters (C0, DEL and C1). */
export function searchText(description: string) {
  return z
    .string()
    .refine((text) => text.trim().length > 0, 'must not be blank')
    // The spec counts non-blank characters: spaces between words do not count against the 100.
    .refine((text) => text.replace(/\s/g, '').length <= 100, 'must be at most 100 characters, not counting blanks')
    .refine((text) => !/[%_]/.test(text), 'must not contain % or _')
    // eslint-disable-next-line no-control-regex
    .refine((text) => !/[\u0000-\u001f\u007f-\u009f]/.test(text), 'must not contain control characters')
    .describe(description);
}

/** Shortens message text in compact views, saying so; the full view has it whole. */
export function preview(text: unknown, length = 240): unknown {
  return typeof text === 'string' && text.length > length ? `${text.slice(0, length)}… [${text.length - length} more characters: view "full"]` : text;
}

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

/** The description marker of a tool whose payload the spec does not show; the guide says what it means. */
export const PASS_THROUGH = 'Extra fields pass through.';

/**
 * Creates a new file in the export folder for writing. The name is one plain segment, the folder
 * is resolved to its real path, and the file is created exclusively (`wx`), so nothing already
 * there (a file, or a symlink planted to redirect the write) is followed or overwritten.
 */
export async function createExportFile(folder: string, name: string): Promise<{ file: string; stream: WriteStream }> {
  await mkdir(folder, { recursive: true });
  const root = await realpath(folder);
  const file = path.join(root, name);
  if (path.dirname(file) !== root) throw new ToolFailure(`- outputFile: must be a plain file name inside the export folder (${root})`);
  try {
    const handle = await open(file, 'wx', 0o600);
    return { file, stream: handle.createWriteStream() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ToolFailure(`- outputFile: ${name} already exists in the export folder (${root}); exports never overwrite, so choose another name`);
    }
    throw error;
  }
}
