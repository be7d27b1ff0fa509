/**
 * A mirror on disk (`--mirror disk`): an append-only journal of the changes that built it, each
 * record compressed and sealed with AES-256-GCM, so that a restart replays it and resumes where the
 * last sync stopped. Nothing in the file is readable, or can be altered or reordered unnoticed,
 * without SVC_MIRROR_SECRET and the API key it belongs to:
 *
 * - the file's name is an HMAC of the key under a key derived from the secret (it links to no key);
 * - each record's key is derived (HKDF-SHA256) from the secret, salted with the API key's hash;
 * - each record's associated data binds the file's generation (random per rewrite), its position
 *   and the file's name, so records cannot be moved between files, positions or rewrites.
 *
 * A record that fails to open ends the replay there: what came before is kept, the rest is dropped
 * (a crash cut the last write short, or the file was tampered with), and the mirror syncs again.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Change } from './schema.js';

const MAGIC = Buffer.from('SVCMIR01');
const GENERATION_BYTES = 16;
const HEADER_BYTES = MAGIC.length + GENERATION_BYTES;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** A record larger than this cannot be ours: the length field was damaged. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/** The folder under SVC_STATE_DIR that holds every workspace's journal, readable by this user only. */
export function mirrorFolder(stateDir: string): string {
  return path.join(stateDir, 'mirrors');
}

/** The journal's file name for a key: an HMAC, so the name reveals nothing of the key. */
export function journalName(secret: string, apiKey: string): string {
  const namingKey = Buffer.from(hkdfSync('sha256', secret, 'svc-mcp mirror', 'file names', 32));
  return createHmac('sha256', namingKey).update(apiKey).digest('hex').slice(0, 40);
}

export interface Replay {
  changes: Change[][];
  /** Why the replay stopped before the end of the file, if it did. */
  stoppedEarly?: string;
}

export class Journal {
  private readonly key: Buffer;
  private generation = Buffer.alloc(0);
  private sequence = 0;
  private fd?: number;
  /** Where the next record goes: after the last good one, written at that position (a file opened to read and write starts at 0). */
  private end = 0;
  /** Bytes written since the journal was last rewritten whole, and its size then. */
  private sinceRewrite = 0;
  private rewrittenSize = 0;

  constructor(
    readonly path: string,
    secret: string,
    apiKey: string,
  ) {
    const salt = createHash('sha256').update(apiKey).digest();
    this.key = Buffer.from(hkdfSync('sha256', secret, salt, 'svc-mcp mirror journal v1', 32));
  }

  static at(stateDir: string, secret: string, apiKey: string): Journal {
    const folder = mirrorFolder(stateDir);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return new Journal(path.join(folder, `${journalName(secret, apiKey)}.mirror`), secret, apiKey);
  }

  /** Reads every record the file holds that opens; the journal then appends after them. */
  replay(): Replay {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.startFresh();
      throw error;
    }
    if (bytes.length < HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
      return { ...this.startFresh(), stoppedEarly: 'the file is not a mirror journal of this version; it was replaced' };
    }
    this.generation = Buffer.from(bytes.subarray(MAGIC.length, HEADER_BYTES));
    const changes: Change[][] = [];
    let offset = HEADER_BYTES;
    let stoppedEarly: string | undefined;
    while (offset < bytes.length) {
      const opened = this.open(bytes, offset, changes.length);
      if (!opened) {
        stoppedEarly =
          changes.length === 0
            ? 'it could not be opened with this SVC_MIRROR_SECRET and key (another secret, or tampered): it was replaced'
            : `record ${changes.length + 1} could not be opened (cut short by a crash, or tampered): the ${changes.length} before it were kept`;
        break;
      }
      changes.push(opened.changes);
      offset = opened.next;
    }
    this.sequence = changes.length;
    if (stoppedEarly && changes.length === 0) return { ...this.startFresh(), stoppedEarly };
    this.fd = openSync(this.path, 'r+', 0o600);
    if (stoppedEarly) {
      // Appends go after the last good record, never after bytes that do not open.
      ftruncateSync(this.fd, offset);
    }
    this.rewrittenSize = offset;
    this.end = offset;
    return { changes, stoppedEarly };
  }

  /** Seals and appends one batch of changes; on disk before it returns. */
  append(changes: readonly Change[]): void {
    if (this.fd === undefined) throw new Error('internal: the journal was not opened');
    const record = this.seal(changes, this.sequence);
    writeSync(this.fd, record, 0, record.length, this.end);
    fsyncSync(this.fd);
    this.end += record.length;
    this.sequence++;
    this.sinceRewrite += record.length;
  }

  /** Whether the file has grown enough past its last rewrite to be worth rewriting from what the mirror holds. */
  get wantsRewrite(): boolean {
    return this.sinceRewrite > Math.max(16 * 1024 * 1024, this.rewrittenSize);
  }

  /** Replaces the file by one holding `batches` (what the mirror holds now), under a new generation. */
  rewrite(batches: Iterable<readonly Change[]>): void {
    const generation = randomBytes(GENERATION_BYTES);
    const temporary = `${this.path}.${process.pid}.tmp`;
    const fd = openSync(temporary, 'w', 0o600);
    const previous = { generation: this.generation, sequence: this.sequence };
    try {
      this.generation = generation;
      this.sequence = 0;
      writeSync(fd, Buffer.concat([MAGIC, generation]));
      for (const batch of batches) {
        writeSync(fd, this.seal(batch, this.sequence));
        this.sequence++;
      }
      fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      rmSync(temporary, { force: true });
      this.generation = previous.generation;
      this.sequence = previous.sequence;
      throw error;
    }
    closeSync(fd);
    renameSync(temporary, this.path);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = openSync(this.path, 'r+', 0o600);
    this.rewrittenSize = statSync(this.path).size;
    this.end = this.rewrittenSize;
    this.sinceRewrite = 0;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Deletes the file: the mirror it held is gone for good (the key was refused by the API). */
  discard(): void {
    this.close();
    rmSync(this.path, { force: true });
  }

  private startFresh(): Replay {
    this.generation = randomBytes(GENERATION_BYTES);
    this.sequence = 0;
    const fd = openSync(this.path, 'w', 0o600);
    writeSync(fd, Buffer.concat([MAGIC, this.generation]));
    fsyncSync(fd);
    this.fd = fd;
    this.rewrittenSize = HEADER_BYTES;
    this.end = HEADER_BYTES;
    this.sinceRewrite = 0;
    return { changes: [] };
  }

  private associatedData(sequence: number): Buffer {
    const position = Buffer.alloc(8);
    position.writeBigUInt64BE(BigInt(sequence));
    return Buffer.concat([this.generation, position, Buffer.from(path.basename(this.path))]);
  }

  private seal(changes: readonly Change[], sequence: number): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(this.associatedData(sequence));
    const sealed = Buffer.concat([cipher.update(deflateRawSync(JSON.stringify(changes))), cipher.final()]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(NONCE_BYTES + sealed.length + TAG_BYTES);
    return Buffer.concat([length, nonce, sealed, cipher.getAuthTag()]);
  }

  private open(bytes: Buffer, offset: number, sequence: number): { changes: Change[]; next: number } | undefined {
    if (offset + 4 > bytes.length) return undefined;
    const length = bytes.readUInt32BE(offset);
    const end = offset + 4 + length;
    if (length < NONCE_BYTES + TAG_BYTES || length > MAX_RECORD_BYTES || end > bytes.length) return undefined;
    const nonce = bytes.subarray(offset + 4, offset + 4 + NONCE_BYTES);
    const sealed = bytes.subarray(offset + 4 + NONCE_BYTES, end - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, nonce);
      decipher.setAAD(this.associatedData(sequence));
      decipher.setAuthTag(bytes.subarray(end - TAG_BYTES, end));
      const plain = Buffer.concat([decipher.update(sealed), decipher.final()]);
      return { changes: JSON.parse(inflateRawSync(plain).toString('utf8')) as Change[], next: end };
    } catch {
      return undefined;
    }
  }
}
