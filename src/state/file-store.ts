import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { unsafeFolderReason } from '../folder-safety.js';
import { checkSpace, newStoreId, storedId, type StateStore } from './store.js';

/** How often expired records are removed from disk, at most. */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * State under SVC_STATE_DIR: one small file per record, `<dir>/<space>/<sha256 of the id>`, holding
 * `{"expiresAt":…,"value":…}`. Atomicity comes from the file system, so it holds across every
 * process that shares the folder (two stdio servers started with one SVC_CONFIRM_SECRET, say):
 * - `claim` creates the file with O_EXCL: one creator wins;
 * - `put` writes a temporary file and renames it over the record;
 * - `take` renames the record to a name of its own first: one renamer wins, then it reads.
 * Every write is flushed, file and folder, before it returns, so a SIGKILL or a power cut right
 * after cannot lose it. Folders are 0700 and files 0600: the records are the user's alone.
 */
export class FileStateStore implements StateStore {
  private readonly sweeper: NodeJS.Timeout;

  private constructor(
    private readonly dir: string,
    readonly id: string,
    private readonly now: () => number,
  ) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  /**
   * Opens (creating) the folder and checks it can be written and that no one else can, so a start
   * fails with a clear reason rather than a later call, or a record another user deleted.
   */
  static async open(dir: string, now: () => number = Date.now): Promise<FileStateStore> {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    for (const folder of [dir, ...(await spaceFolders(dir))]) {
      const unsafe = await unsafeFolderReason(folder, folder === dir ? 'follow' : 'refuse');
      if (unsafe) throw new Error(folder === dir ? unsafe : `${path.relative(dir, folder)} in it: ${unsafe}`);
    }
    const probe = path.join(dir, `.probe-${randomBytes(6).toString('hex')}`);
    await fs.writeFile(probe, '', { mode: 0o600 });
    await fs.unlink(probe);
    const store = new FileStateStore(dir, await storeIdOf(dir), now);
    void store.sweep().catch(() => undefined);
    return store;
  }

  async claim(space: string, id: string, expiresAt: number): Promise<boolean> {
    const file = await this.file(space, id);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.write(file, record('', expiresAt), constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      // An expired record no longer stands: whoever moves it away first may claim the id again.
      if (!(await this.expired(file)) || !(await this.moveAway(file))) return false;
    }
    return false;
  }

  async put(space: string, id: string, value: string, expiresAt: number): Promise<void> {
    const file = await this.file(space, id);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await this.write(temporary, record(value, expiresAt), constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
    await fs.rename(temporary, file);
    await syncFolder(path.dirname(file));
  }

  async get(space: string, id: string): Promise<string | undefined> {
    return this.read(await this.file(space, id));
  }

  async take(space: string, id: string): Promise<string | undefined> {
    const file = await this.file(space, id);
    const moved = await this.moveAway(file);
    if (!moved) return undefined;
    const value = await this.read(moved);
    await fs.unlink(moved).catch(() => undefined);
    return value;
  }

  async delete(space: string, id: string): Promise<void> {
    const file = await this.file(space, id);
    await fs.unlink(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await syncFolder(path.dirname(file));
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private async file(space: string, id: string): Promise<string> {
    const folder = path.join(this.dir, checkSpace(space));
    await fs.mkdir(folder, { recursive: true, mode: 0o700 });
    return path.join(folder, storedId(id));
  }

  private async write(file: string, text: string, flags: number): Promise<void> {
    const handle = await fs.open(file, flags, 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncFolder(path.dirname(file));
  }

  private async read(file: string): Promise<string | undefined> {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const parsed = parseRecord(text);
    return parsed && parsed.expiresAt > this.now() ? parsed.value : undefined;
  }

  private async expired(file: string): Promise<boolean> {
    const parsed = parseRecord(await fs.readFile(file, 'utf8').catch(() => ''));
    // A record that cannot be read (cut short by a crash before its flush) is treated as standing: refusing is the safe side.
    return parsed !== undefined && parsed.expiresAt <= this.now();
  }

  /** Renames the record to a name of this caller's own: the path of it when this caller won, else undefined. */
  private async moveAway(file: string): Promise<string | undefined> {
    const moved = `${file}.${randomBytes(6).toString('hex')}.taken`;
    try {
      await fs.rename(file, moved);
      return moved;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private async sweep(): Promise<void> {
    const now = this.now();
    for (const space of await fs.readdir(this.dir).catch(() => [] as string[])) {
      const folder = path.join(this.dir, space);
      for (const name of await fs.readdir(folder).catch(() => [] as string[])) {
        const file = path.join(folder, name);
        if (name.endsWith('.tmp') || name.endsWith('.taken')) {
          // Left by a process that died between its two steps; an hour is far beyond any such step.
          const { mtimeMs } = await fs.stat(file).catch(() => ({ mtimeMs: now }));
          if (now - mtimeMs > 3_600_000) await fs.unlink(file).catch(() => undefined);
          continue;
        }
        const parsed = parseRecord(await fs.readFile(file, 'utf8').catch(() => ''));
        if (parsed && parsed.expiresAt <= now) await fs.unlink(file).catch(() => undefined);
      }
    }
  }
}

/**
 * The folder's store id, made by the first process to open it and kept in `store-id`: every process
 * sharing the folder shares the id, and with it the tokens it records as spent.
 */
async function storeIdOf(dir: string): Promise<string> {
  const file = path.join(dir, 'store-id');
  // Written whole under a name of its own, then linked into place: a process that loses the race reads the winner's id, never half of it.
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temporary, newStoreId(), { flag: 'wx', mode: 0o600 });
  try {
    await fs.link(temporary, file);
    await syncFolder(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fs.unlink(temporary);
  }
  const id = (await fs.readFile(file, 'utf8')).trim();
  if (!/^[0-9a-f]{12}$/.test(id)) throw new Error(`${file} does not hold a store id (12 hex digits); delete it to make a new one`);
  return id;
}

/** The folders of the spaces already there. */
async function spaceFolders(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  return entries.filter((entry) => !entry.isFile()).map((entry) => path.join(dir, entry.name));
}

function record(value: string, expiresAt: number): string {
  return JSON.stringify({ expiresAt, value });
}

function parseRecord(text: string): { expiresAt: number; value: string } | undefined {
  try {
    const parsed = JSON.parse(text) as { expiresAt?: unknown; value?: unknown };
    return typeof parsed.expiresAt === 'number' && typeof parsed.value === 'string' ? { expiresAt: parsed.expiresAt, value: parsed.value } : undefined;
  } catch {
    return undefined;
  }
}

/** A rename or a new file is durable only once its folder is flushed too. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await fs.open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
