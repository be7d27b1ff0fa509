import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

// Each byte by the character it is: a reader checks '{' at a glance, not 0x7b.
const QUOTE = '"'.charCodeAt(0);
const BACKSLASH = '\\'.charCodeAt(0);
const COLON = ':'.charCodeAt(0);
const COMMA = ','.charCodeAt(0);
const OPEN_BRACE = '{'.charCodeAt(0);
const OPEN_BRACKET = '['.charCodeAt(0);
const CLOSE_BRACE = '}'.charCodeAt(0);
const CLOSE_BRACKET = ']'.charCodeAt(0);
/** Longest key text kept to compare with "id": enough for it fully escaped, `"\u0069\u0064"`. */
const KEY_BYTES = 16;
/** Longest id text kept; a longer string id cannot be answered (no client uses one). */
const ID_BYTES = 1024;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
const isNumberByte = (byte: number) => (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;

/**
 * Finds the top-level `id` of one JSON text streamed in pieces, keeping only the bytes of keys and
 * of that id: how an over-long message that is discarded unread can still be answered for its id,
 * wherever the id sits. It follows nesting depth and string state, so an `"id"` inside params or
 * inside a string does not count; like JSON.parse, a later top-level `id` wins, and escapes are
 * decoded. Bytes are scanned as bytes: in UTF-8 no byte of a multi-byte character is ASCII.
 */
export class TopLevelIdScanner {
  private depth = 0;
  private started = false;
  /** The text is not one object (a batch, a bare value): it has no single id to answer. */
  private ignored = false;
  private inString = false;
  private escaped = false;
  /** At depth 1, the next string is a key. */
  private expectKey = false;
  /** At depth 1, the last key was "id" and its value has not begun. */
  private idKeyPending = false;
  private awaitingValue = false;
  private capturing?: { kind: 'key' | 'string' | 'number'; bytes: number[]; limit: number; overflow: boolean };
  private id: RequestId | null = null;

  feed(chunk: Uint8Array): void {
    for (let index = 0; index < chunk.length; index++) this.step(chunk[index]);
  }

  /** The id as JSON.parse would read it, or null when there is none, or it is not a string or number. */
  finish(): RequestId | null {
    if (this.capturing?.kind === 'number') this.endCapture();
    return this.id;
  }

  private step(byte: number): void {
    if (this.ignored) return;
    const capture = this.capturing;
    if (this.inString) {
      if (capture) this.keep(capture, byte);
      if (this.escaped) this.escaped = false;
      else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) {
        this.inString = false;
        if (capture) this.endCapture();
      }
      return;
    }
    if (capture?.kind === 'number') {
      if (isNumberByte(byte)) {
        this.keep(capture, byte);
        return;
      }
      this.endCapture();
    }
    if (isSpace(byte)) return;
    if (!this.started) {
      this.started = true;
      this.ignored = byte !== OPEN_BRACE;
      this.depth = 1;
      this.expectKey = true;
      return;
    }
    if (this.depth !== 1) {
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) this.depth--;
      return;
    }
    // At the top level of the message object.
    const valueOfId = this.awaitingValue && this.idKeyPending;
    if (byte === COLON) {
      this.awaitingValue = true;
      return;
    }
    if (byte === COMMA) {
      this.expectKey = true;
      this.awaitingValue = false;
      this.idKeyPending = false;
      return;
    }
    if (this.awaitingValue) {
      this.awaitingValue = false;
      this.idKeyPending = false;
    }
    if (byte === QUOTE) {
      this.inString = true;
      if (this.expectKey) this.capturing = { kind: 'key', bytes: [byte], limit: KEY_BYTES, overflow: false };
      else if (valueOfId) this.capturing = { kind: 'string', bytes: [byte], limit: ID_BYTES, overflow: false };
      this.expectKey = false;
      return;
    }
    if (valueOfId) {
      // An id that is an object, array, boolean or null cannot be answered by id.
      if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) this.capturing = { kind: 'number', bytes: [byte], limit: ID_BYTES, overflow: false };
      else this.id = null;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) this.depth--;
  }

  private keep(capture: NonNullable<TopLevelIdScanner['capturing']>, byte: number): void {
    if (capture.bytes.length < capture.limit) capture.bytes.push(byte);
    else capture.overflow = true;
  }

  private endCapture(): void {
    const capture = this.capturing!;
    this.capturing = undefined;
    const value = capture.overflow ? undefined : parse(capture.bytes);
    if (capture.kind === 'key') {
      this.idKeyPending = value === 'id';
      return;
    }
    this.id = typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : null;
  }
}

function parse(bytes: number[]): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}
