import { lstat, stat } from 'node:fs/promises';

/**
 * Why a folder cannot hold what only this user should write, or undefined when it can: another user
 * or group able to write it could plant a link the next write follows, or delete a record (a spent
 * confirmation token's, which then sends again). Checked on the folder itself: `link` says whether
 * the folder may be a symbolic link (followed to its target, whose owner and mode then count) or is
 * refused as one. On Windows, where folders carry no POSIX owner and mode, only links are checked.
 */
export async function unsafeFolderReason(folder: string, link: 'follow' | 'refuse'): Promise<string | undefined> {
  const own = await lstat(folder);
  if (own.isSymbolicLink() && link === 'refuse') return 'it is a symbolic link, which a write there would follow wherever it points';
  const status = own.isSymbolicLink() ? await stat(folder) : own;
  if (!status.isDirectory()) return 'it is not a folder';
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  if (status.uid !== uid) return `it belongs to another user (uid ${status.uid}), who could change what is in it`;
  if ((status.mode & 0o022) !== 0) return `others can write it (mode ${(status.mode & 0o777).toString(8).padStart(4, '0')}), so another user could plant or delete what is in it; chmod go-w it`;
  return undefined;
}
