import { isRecord } from '../../json.js';
import { DAY_MS } from '../inputs.js';
import { Envelope, needsCleaning, PLAIN_VALUE, stringsArePlain } from './envelope.js';
import { listItems, MAX_RENDER_DEPTH, type ShapeOptions } from './shape-options.js';

/**
 * The text rendering of a result: a tool's own (`text`), or a YAML-like outline of the data with
 * every string the API wrote escaped onto one line, each record holding third-party text in one
 * envelope, and what was cut said first.
 */

/** Indentation by depth, built once: rendering is on every call's path. */
const PADS = Array.from({ length: MAX_RENDER_DEPTH + 2 }, (_, depth) => '  '.repeat(depth));

/** Keys whose epoch-millisecond numbers are shown as ISO times in text. */
const TIME_KEY = /(At|^since|^until)$/;
/** From 2000-01-01: smaller numbers under a time key are more likely counts or offsets than times. */
const EARLIEST_SHOWN_TIME_MS = 946_684_800_000;
/** 9999-12-31T23:59:59.999Z: later years have a longer, signed form that the fast path does not build. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;
const TWO_DIGITS = Array.from({ length: 60 }, (_, value) => String(value).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'));

function allScalars(values: unknown[]): boolean {
  for (let index = 0; index < values.length; index++) {
    const value: unknown = values[index];
    if (typeof value === 'object' && value !== null) return false;
  }
  return true;
}

function isEmptyRecord(value: unknown): boolean {
  if (!isRecord(value)) return false;
  for (const _ in value) return false;
  return true;
}

/**
 * What rendering works out once per process rather than per result, as every result of a list
 * repeats it: field names that need no escaping (with their prefixes by depth), and the date part
 * of times by day number (`Date#toISOString` costs thousands of instructions). The API chooses
 * field names, so each cache is emptied when it reaches MAX_CACHED entries.
 */
const PLAIN_NAMES = new Map<string, FieldName>();
const DAYS = new Map<number, string>();
const MAX_CACHED = 1000;

/** The body of a text result as its lines, and the length of their text joined by line feeds. */
export interface Body {
  lines: string[];
  length: number;
}

/** A field name as text shows it, whether it is third-party text, and whether its numbers are times (TIME_KEY). */
interface FieldName {
  shown: string;
  text: boolean;
  time: boolean;
  /** `<indent>name: ` by depth, built on first use: a list repeats each name on every item, and one concatenation per line is cheaper than three. */
  prefixes: string[];
}

/**
 * Renders data as text. Every string the API returned, field names included, is escaped onto one
 * line, so it cannot start a line of its own. A record that holds third-party text (any string or
 * field name that is not a plain value, see PLAIN_VALUE) sits in one envelope whose tag carries a
 * per-result nonce the text cannot know, so it cannot close the envelope either; a record of ids,
 * numbers, times, flags and enum values needs none. One envelope per record (a list item, else the
 * whole result) keeps the overhead to two short lines per record.
 */
export class Renderer {
  private readonly envelope = new Envelope();
  /** Field names that needed escaping, as shown in this result (the envelope's tag is this result's): list items repeat the same few. */
  private readonly names = new Map<string, FieldName>();
  /** Whether the record being rendered holds third-party text, so it needs the envelope. */
  private holdsText = false;
  /** Whether no string of the value being rendered needs cleaning (`stringsArePlain`). */
  private plainStrings = false;

  constructor(
    private readonly options: ShapeOptions,
    /** The field whose records are shown one by one, when the value is such a list; a bare array's records are too. */
    private readonly itemsField: string | undefined,
  ) {}

  /** The value's lines; `json` is the value as JSON.stringify wrote it, which tells the outline whether any string needs cleaning. */
  body(value: unknown, json: string): Body {
    if (this.options.text) {
      try {
        const text = this.options.text(value, this.envelope.quote);
        return { lines: [text], length: text.length };
      } catch {
        // A value the cap cut down no longer has the shape the tool's own rendering reads: the outline shows any shape.
      }
    }
    this.plainStrings = stringsArePlain(json);
    const items = this.itemsField === undefined ? (Array.isArray(value) ? value : undefined) : listItems(value, this.itemsField);
    const lines: string[] = [];
    if (!items) {
      this.record(lines, value);
    } else {
      if (this.itemsField !== undefined && isRecord(value)) this.record(lines, Object.fromEntries(Object.entries(value).filter(([key]) => key !== this.itemsField)));
      if (this.itemsField !== undefined) lines.push(`${this.itemsField}:`);
      if (items.length === 0) lines.push('(none)');
      for (const item of items) this.record(lines, item);
    }
    let length = Math.max(0, lines.length - 1);
    for (const line of lines) length += line.length;
    return { lines, length };
  }

  /**
   * The text: what was cut first (a result that stops early says so in its first line: the tool's
   * own stop, then this result's cap), then heading, notice and body, joined once (the body is
   * the larger part by far, and copying it twice showed in every call's cost).
   */
  finish(body: Body, notes: string[]): string {
    const lines: string[] = this.options.stoppedEarly ? [this.options.stoppedEarly] : [];
    for (const note of notes) lines.push(`Note: ${note}`);
    if (this.options.heading) lines.push(this.options.heading);
    if (this.envelope.used) lines.push(this.envelope.notice);
    if (body.length > 0) for (const line of body.lines) lines.push(line);
    return lines.join('\n');
  }

  /** One record, in one envelope when it holds third-party text; a record with nothing to show gets no line. */
  private record(lines: string[], value: unknown): void {
    if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') {
      lines.push(String(value));
      return;
    }
    const opening = lines.push(this.envelope.opening) - 1;
    this.holdsText = false;
    this.outline(lines, value, 0);
    if (lines.length === opening + 1) lines.pop();
    else if (this.holdsText) lines.push(this.envelope.close());
    else lines.splice(opening, 1);
  }

  /** A YAML-like outline, line by line: fewer tokens than JSON and easy to read; empty values are left out. */
  private outline(lines: string[], value: unknown, indent: number, key?: FieldName): void {
    const pad = PADS[indent] ?? '  '.repeat(indent);
    if (Array.isArray(value)) {
      if (value.length === 0) lines.push(`${pad}(none)`);
      for (const item of value) {
        // The item's own lines, with its first one moved up behind the dash.
        const first = lines.length;
        this.outline(lines, item, indent + 1, key);
        lines[first] = `${pad}- ${first < lines.length ? lines[first].trimStart() : ''}`;
      }
      return;
    }
    if (isRecord(value)) {
      for (const rawName in value) {
        const item = value[rawName];
        if (item === null || item === undefined) continue;
        // Most fields are scalars: one type test tells them from lists and records.
        if (typeof item !== 'object') {
          const name = this.fieldName(rawName);
          if (name.text) this.holdsText = true;
          lines.push((name.prefixes[indent] ??= `${pad}${name.shown}: `) + this.scalar(item, name));
          continue;
        }
        const list = Array.isArray(item);
        if (list ? item.length === 0 : isEmptyRecord(item)) continue;
        const name = this.fieldName(rawName);
        if (name.text) this.holdsText = true;
        if (list && allScalars(item)) {
          lines.push((name.prefixes[indent] ??= `${pad}${name.shown}: `) + this.scalars(item, name));
        } else {
          lines.push(`${pad}${name.shown}:`);
          // A list's dashes sit under its name, as YAML allows: two spaces less on every line of it.
          this.outline(lines, item, list ? indent : indent + 1, name);
        }
      }
      return;
    }
    lines.push(`${pad}${this.scalar(value, key)}`);
  }

  private fieldName(rawName: string): FieldName {
    let name = PLAIN_NAMES.get(rawName) ?? this.names.get(rawName);
    if (name !== undefined) return name;
    const plain = !needsCleaning(rawName);
    name = { shown: plain ? rawName : this.envelope.oneLine(rawName), text: !PLAIN_VALUE.test(rawName), time: TIME_KEY.test(rawName), prefixes: [] };
    if (!plain) {
      this.names.set(rawName, name);
    } else {
      if (PLAIN_NAMES.size >= MAX_CACHED) PLAIN_NAMES.clear();
      PLAIN_NAMES.set(rawName, name);
    }
    return name;
  }

  /** A list of scalars on one line. */
  private scalars(values: unknown[], key: FieldName): string {
    let line = '';
    for (let index = 0; index < values.length; index++) line += (index === 0 ? '' : ', ') + this.scalar(values[index], key);
    return line;
  }

  private scalar(value: unknown, key: FieldName | undefined): string {
    if (typeof value === 'number' && key?.time && value >= EARLIEST_SHOWN_TIME_MS) return this.time(value);
    if (typeof value !== 'string') return String(value);
    if (!this.holdsText && !PLAIN_VALUE.test(value)) this.holdsText = true;
    return this.plainStrings ? value : this.envelope.oneLine(value);
  }

  /**
   * What `Date#toISOString` gives, a few times faster: a list holds many times a few days apart,
   * so the date part is formatted once per day and the time of day by arithmetic.
   */
  private time(ms: number): string {
    // An out-of-range time from one odd record shows as its number instead of failing the whole result.
    if (!(ms <= LAST_FOUR_DIGIT_YEAR_MS)) {
      const time = new Date(ms);
      return Number.isFinite(time.getTime()) ? time.toISOString() : String(ms);
    }
    const whole = Math.trunc(ms);
    const day = Math.floor(whole / DAY_MS);
    let date = DAYS.get(day);
    if (date === undefined) {
      if (DAYS.size >= MAX_CACHED) DAYS.clear();
      DAYS.set(day, (date = new Date(day * DAY_MS).toISOString().slice(0, 11)));
    }
    const sinceMidnight = whole - day * DAY_MS;
    const seconds = Math.floor(sinceMidnight / 1000);
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor(seconds / 60) % 60;
    return `${date}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds % 60]}.${THREE_DIGITS[sinceMidnight % 1000]}Z`;
  }
}
