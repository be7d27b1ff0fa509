import { writeSync } from 'node:fs';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogFormat } from './config.js';
import { showHiddenInLines, showHiddenOnOneLine } from './hidden-characters.js';
import { isRecord } from './json.js';
import { redactLiveKeys } from './redaction/live-keys.js';

export type { Logger };

/**
 * Logs go to stderr only: in stdio mode stdout carries JSON-RPC and nothing else. Every finished
 * line is redacted of every live key, so a key inside an error object, a nested field or a message is masked alike.
 * The in-process test harness passes its own destination to read what a process would have written.
 */
export function createLogger(level: string, format: LogFormat = 'json', destination?: DestinationStream): Logger {
  const stderr = destination ?? (format === 'pretty' ? prettyDestination(2, colorsWanted()) : pino.destination({ fd: 2, sync: true }));
  const redacted: DestinationStream = { write: (line: string) => stderr.write(redactLiveKeys(line)) };
  return pino(
    {
      level,
      base: { service: 'svc-mcp' },
      formatters: { log: redactFields },
      serializers: { err: (error: unknown) => redactPaths(pino.stdSerializers.err(error as Error)) },
    },
    redacted,
  );
}

const REDACTED = '[redacted]';
/** Field names whose values no log line shows. */
const REDACTED_FIELDS = ['apiKey', 'authorization'];

/**
 * What pino's `redact` with the paths `apiKey`, `authorization`, `headers.authorization` and each
 * of them under any top-level field (`*.apiKey`, ...) would write, at a fraction of its cost: pino
 * runs the redactor of a wildcard path over every field of every line (two lines per call), while
 * the usual line holds no such field and is returned as it is, uncopied. The error key is
 * redacted after its serializer, as pino's redaction would see it.
 */
function redactFields(record: Record<string, unknown>): Record<string, unknown> {
  let copy = redactPaths(record, true);
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (key === 'err' || REDACTED_FIELDS.includes(key) || !isRecord(value)) continue;
    const redacted = redactPaths(value);
    if (redacted !== value) {
      if (copy === record) copy = { ...record };
      copy[key] = redacted;
    }
  }
  return copy;
}

/** The paths redacted in one object; the same object when none is there. At the top level a field left undefined is not written, so it is not redacted either. */
function redactPaths<T>(value: T, topLevel = false): T {
  if (!isRecord(value)) return value;
  const record: Record<string, unknown> = value;
  let copy: Record<string, unknown> | undefined;
  for (const name of REDACTED_FIELDS) {
    if (Object.hasOwn(record, name) && !(topLevel && record[name] === undefined)) (copy ??= { ...record })[name] = REDACTED;
  }
  const headers = record.headers;
  if (isRecord(headers) && Object.hasOwn(headers, 'authorization')) {
    (copy ??= { ...record }).headers = { ...headers, authorization: REDACTED };
  }
  return (copy ?? record) as T;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLORS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every record carries that a person reading a terminal does not need repeated. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

function colorsWanted(): boolean {
  return Boolean(process.stderr.isTTY) && !('NO_COLOR' in process.env);
}

/**
 * `--log-format pretty`: one readable line per record, `12:03:04.120 INFO  message key=value ...`,
 * with an error's stack on the lines after. pino-pretty would do more, but this is all a person
 * running the server by hand needs, and it costs no dependency.
 */
export function prettyDestination(fd: number, colors: boolean): DestinationStream {
  return {
    write(line: string) {
      writeSync(fd, formatPretty(line, colors));
    },
  };
}

export function formatPretty(line: string, colors = false): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return showHiddenInLines(line.endsWith('\n') ? line : `${line}\n`);
  }
  const level = typeof record.level === 'number' ? record.level : 30;
  const name = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
  const time = typeof record.time === 'number' ? clockTime(new Date(record.time)) : '';
  let stack = '';
  const fields: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (OMITTED.has(key) || value === undefined) continue;
    if (key === 'err' && value && typeof value === 'object' && 'stack' in value) {
      stack = `\n    ${showHiddenInLines(String((value as { stack: unknown }).stack)).replaceAll('\n', '\n    ')}`;
      continue;
    }
    fields.push(`${key}=${typeof value === 'string' && !/\s|=|"/.test(value) ? value : JSON.stringify(value)}`);
  }
  const label = colors ? `\u001b[${LEVEL_COLORS[level] ?? '0'}m${name}\u001b[0m` : name;
  // What a client chose (an OAuth client's name, a JSON-RPC method) may hold terminal escape sequences or
  // bidi controls: a person's terminal shows every hidden character escaped, and only our own colours raw.
  const shown = [String(record.msg ?? ''), ...fields].map(showHiddenOnOneLine);
  return `${[time, label, ...shown].filter(Boolean).join(' ')}${stack}\n`;
}

/** Local wall-clock time to the millisecond: what a person compares with their own clock. */
function clockTime(date: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}
