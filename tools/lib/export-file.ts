import { open, mkdir, realpath } from 'node:fs/promises';
import type { WriteStream } from 'node:fs';
import path from 'node:path';
import { ToolFailure } from '../../src/engine/errors.js';

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
