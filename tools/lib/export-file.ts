import { constants, type WriteStream } from 'node:fs';
import { lstat, mkdir, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolFailure } from '../../src/engine/errors.js';
import { unsafeFolderReason } from '../../src/folder-safety.js';

/**
 * Creates a new file in the export folder for writing, checked at the export (not at start, so a
 * folder changed since still counts): the folder must be a real folder of this user that no one else
 * can write, never a symbolic link (one planted in the shared temp folder would send the file
 * anywhere). The name is one plain segment, and the file is created exclusively without following a
 * link (`wx`, O_NOFOLLOW), so nothing already there, a file or a planted link, is followed or overwritten.
 */
export async function createExportFile(folder: string, name: string): Promise<{ file: string; stream: WriteStream }> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const unsafe = await unsafeFolderReason(folder, 'refuse');
  if (unsafe) throw new ToolFailure(`- outputFile: the export folder ${folder} cannot be used: ${unsafe}. Point SVC_EXPORT_DIR at a folder of your own`);
  const root = await realpath(folder);
  const file = path.join(root, name);
  if (path.dirname(file) !== root) throw new ToolFailure(`- outputFile: must be a plain file name inside the export folder (${root})`);
  try {
    const handle = await open(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0), 0o600);
    return { file, stream: handle.createWriteStream() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ELOOP') {
      const link = await lstat(file).then(
        (status) => status.isSymbolicLink(),
        () => false,
      );
      throw new ToolFailure(
        `- outputFile: ${name} already exists in the export folder (${root})${link ? ' as a symbolic link' : ''}; exports never overwrite or follow a link, so choose another name`,
      );
    }
    throw error;
  }
}
