import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/mirror/database.js';
import { judgeSql } from '../../src/mirror/guard.js';
import { Journal } from '../../src/mirror/journal.js';
import { MirrorRegistry } from '../../src/mirror/registry.js';
import type { Change } from '../../src/mirror/schema.js';
import { createLogger } from '../../src/log.js';
import { MIRROR_TABLES } from '../../tools/lib/mirror/tables.js';
import { RequestProgress } from '../../tools/lib/progress.js';
import { gaps, withRead, type HeldWindow } from '../../tools/lib/mirror/windows.js';
import type { ToolContext } from '../../src/engine/define.js';

const SECRET = 'a-mirror-secret-of-at-least-32-chars!!';
const KEY = `svc_${'a1'.repeat(16)}`;
const batch = (index: number): Change[] => [{ insert: 'ids_seen', rows: [['tag_group', `group-${index}`, 'sync', 1_700_000_000_000 + index]] }];

describe("the mirror's journal on disk", () => {
  const fresh = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-journal-'));
    const journal = Journal.at(dir, SECRET, KEY);
    journal.replay();
    for (let index = 0; index < 5; index++) journal.append(batch(index));
    journal.close();
    return { dir, file: journal.path };
  };

  it('gives back every batch it was given, in order, and nothing readable on disk', () => {
    const { dir, file } = fresh();
    const replay = Journal.at(dir, SECRET, KEY).replay();
    expect(replay.changes).toEqual([0, 1, 2, 3, 4].map(batch));
    expect(replay.stoppedEarly).toBeUndefined();
    expect(readFileSync(file).includes(Buffer.from('group-'))).toBe(false);
  });

  it('keeps the records before any byte changed, cut or moved, whichever it is, and refuses another secret or key', () => {
    const { dir, file } = fresh();
    const original = readFileSync(file);
    fc.assert(
      fc.property(fc.integer({ min: 24, max: original.length - 1 }), fc.integer({ min: 1, max: 255 }), (offset, flip) => {
        const damaged = Buffer.from(original);
        damaged[offset] ^= flip;
        writeFileSync(file, damaged);
        const replay = Journal.at(dir, SECRET, KEY).replay();
        expect(replay.stoppedEarly).toBeDefined();
        expect(replay.changes).toEqual([0, 1, 2, 3, 4].slice(0, replay.changes.length).map(batch));
      }),
      { numRuns: 60 },
    );
    writeFileSync(file, original.subarray(0, original.length - 7));
    expect(Journal.at(dir, SECRET, KEY).replay().changes).toHaveLength(4);
    writeFileSync(file, original);
    expect(new Journal(file, 'another-secret-that-is-long-enough-!!!', KEY).replay().changes).toHaveLength(0);
    writeFileSync(file, original);
    expect(new Journal(file, SECRET, `svc_${'b2'.repeat(16)}`).replay().changes).toHaveLength(0);
  });

  it('keeps every batch through any order of appends, reopenings and rewrites: a reopened or rewritten file is appended to, never written over', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-journal-'));
    fc.assert(
      fc.property(fc.array(fc.constantFrom('append', 'reopen', 'rewrite'), { minLength: 1, maxLength: 12 }), (operations) => {
        const key = `svc_${randomUUID().replaceAll('-', '')}`;
        let journal = Journal.at(dir, SECRET, key);
        journal.replay();
        const held: Change[][] = [];
        for (const operation of operations) {
          if (operation === 'append') {
            held.push(batch(held.length));
            journal.append(held.at(-1)!);
          } else if (operation === 'rewrite') {
            journal.rewrite(held);
          } else {
            journal.close();
            journal = Journal.at(dir, SECRET, key);
            expect(journal.replay()).toEqual({ changes: held });
          }
        }
        journal.close();
        expect(Journal.at(dir, SECRET, key).replay()).toEqual({ changes: held });
      }),
      { numRuns: 100 },
    );
  });

  it('names its file by an HMAC of the key: nothing of the key in the name', () => {
    const { file } = fresh();
    expect(path.basename(file)).toMatch(/^[0-9a-f]{40}\.mirror$/);
    expect(path.basename(file)).not.toContain(KEY.slice(4, 10));
  });
});

describe("people's SQL", () => {
  let db: Database | undefined;
  afterEach(() => {
    db?.close();
    db = undefined;
  });
  const readable = new Set(MIRROR_TABLES.filter((table) => !table.internal).map((table) => table.name));

  it('refuses whatever reads a file, a URL, a setting or the catalog, or builds a value as large as an argument asks, wherever in the statement it hides', async () => {
    db = await Database.open({ memoryLimitMb: 64, threads: 1 }, MIRROR_TABLES);
    const hostile = fc.constantFrom(
      "read_csv('/etc/passwd')",
      "read_text('/etc/hostname')",
      "read_parquet('https://example.com/x.parquet')",
      'duckdb_settings()',
      'duckdb_databases()',
      'duckdb_tables()',
      "glob('/*')",
      'pragma_database_list()',
    );
    const scalar = fc.constantFrom(
      "current_setting('threads')",
      "getvariable('x')",
      "getenv('HOME')",
      'current_database()',
      // One call of these builds a value as large as its argument asks, outside the engine's memory limit and interrupt.
      'list_resize([1], 100000000)',
      'ARRAY_RESIZE([1], 100000000, 0)',
      "repeat('x', 1500000000)",
      'Repeat([1], 100000000)',
      "lpad('x', 1000000000, 'y')",
      "rpad('x', 1000000000, 'y')",
      "printf('%500000000d', 1)",
      "format('{:>500000000}', 'x')",
      "bitstring('1', 1000000000)",
    );
    const shapes = fc.constantFrom(
      (from: string) => `SELECT * FROM ${from}`,
      (from: string) => `SELECT id FROM conversations WHERE id IN (SELECT 1 FROM ${from})`,
      (from: string) => `WITH t AS (SELECT * FROM ${from}) SELECT * FROM t`,
      (from: string) => `SELECT * FROM conversations, LATERAL (SELECT * FROM ${from}) x`,
      (from: string) => `SELECT (SELECT count(*) FROM ${from}) AS n`,
      (from: string) => `SELECT * FROM conversations UNION ALL SELECT * FROM ${from}`,
    );
    const scalarShapes = fc.constantFrom(
      (call: string) => `SELECT ${call}`,
      (call: string) => `SELECT id FROM agents WHERE name = ${call}`,
      (call: string) => `SELECT list_transform([1, 2], x -> ${call})`,
      (call: string) => `SELECT CASE WHEN true THEN ${call} END`,
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.tuple(shapes, hostile), fc.tuple(scalarShapes, scalar)), async ([shape, part]) => {
        const verdict = judgeSql(await db!.parse(shape(part)), readable);
        expect(verdict.ok, shape(part)).toBe(false);
      }),
      { numRuns: 120 },
    );
  });

  it('reads a CTE name as the CTE only where the engine binds it: elsewhere it is the catalog, and judged as a table', async () => {
    db = await Database.open({ memoryLimitMb: 64, threads: 1 }, MIRROR_TABLES);
    const hidden = fc.constantFrom('sync_windows', 'sync_runs', 'pg_settings', 'duckdb_databases', 'sqlite_master', 'duckdb_views');
    const shapes = fc.constantFrom(
      (name: string) => `SELECT * FROM ${name}, (WITH ${name} AS (SELECT 1) SELECT 1) x`,
      (name: string) => `SELECT (SELECT count(*) FROM ${name}) + (WITH ${name} AS (SELECT 1) SELECT 1)`,
      (name: string) => `WITH ${name} AS (SELECT * FROM ${name}) SELECT * FROM ${name}`,
      (name: string) => `WITH a AS (SELECT * FROM ${name}), ${name} AS (SELECT 1) SELECT * FROM a`,
      (name: string) => `SELECT * FROM conversations WHERE EXISTS (WITH ${name} AS (SELECT 1) SELECT 1) AND id IN (SELECT 'x' FROM ${name})`,
      (name: string) => `DESCRIBE ${name}`,
      (name: string) => `SUMMARIZE ${name}`,
    );
    await fc.assert(
      fc.asyncProperty(shapes, hidden, async (shape, name) => {
        const sql = shape(name);
        expect(judgeSql(await db!.parse(sql), readable).ok, sql).toBe(false);
      }),
      { numRuns: 60 },
    );
    for (const call of ['pg_sleep(5)', "write_log('x')", "has_table_privilege('sync_windows', 'select')", 'current_query_id()', "in_search_path('memory', 'main')"]) {
      expect(judgeSql(await db.parse(`SELECT ${call}`), readable).ok, call).toBe(false);
    }
  });

  it('refuses a statement that expands to more table reads than the engine can plan quickly, however few its characters', async () => {
    db = await Database.open({ memoryLimitMb: 64, threads: 1 }, MIRROR_TABLES);
    // The engine does not stop planning when interrupted: these ran past any time limit, on a thread of the process.
    const shapes = fc.constantFrom(
      (n: number) =>
        `WITH ${Array.from({ length: n }, (_, i) => `t${i} AS (SELECT * FROM ${i ? `t${i - 1} x JOIN t${i - 1} y USING (id)` : 'conversations'})`).join(', ')} SELECT count(*) FROM t${n - 1}`,
      (n: number) => `SELECT 1 FROM conversations c0${Array.from({ length: n * 10 }, (_, i) => ` JOIN conversations c${i + 1} ON c${i + 1}.id = c${i}.id`).join('')}`,
      (n: number) => `SELECT ${Array.from({ length: n * 10 }, (_, i) => `(SELECT count(*) FROM events WHERE type = '${i}')`).join(', ')}`,
    );
    await fc.assert(
      fc.asyncProperty(shapes, fc.integer({ min: 8, max: 40 }), async (shape, n) => {
        const verdict = judgeSql(await db!.parse(shape(n)), readable);
        expect(verdict.ok).toBe(false);
        expect(verdict.reason).toMatch(/at most 64/);
      }),
      { numRuns: 30 },
    );
    expect(judgeSql(await db.parse('WITH a AS (SELECT * FROM conversations), b AS (SELECT * FROM a JOIN a USING (id)) SELECT * FROM b JOIN events e ON true'), readable)).toEqual({ ok: true });
  });

  it('accepts plain analytics: joins, CTEs, window functions, row generators', async () => {
    db = await Database.open({ memoryLimitMb: 64, threads: 1 }, MIRROR_TABLES);
    for (const sql of [
      'SELECT c."botId", count(*) FROM conversations c JOIN events e ON e."interactionId" = c.id GROUP BY 1',
      "WITH days AS (SELECT unnest(generate_series(DATE '2026-01-01', DATE '2026-01-31', INTERVAL 1 DAY)) AS day) SELECT count(*) FROM days",
      'SELECT id, row_number() OVER (PARTITION BY "botId" ORDER BY "createdAt") FROM conversations',
      "SELECT json_extract_string(tags, '$[*].name') FROM events",
    ]) {
      expect(judgeSql(await db.parse(sql), readable), sql).toEqual({ ok: true });
    }
  });

  it('is locked down by the engine too: no file, no setting changed, should the guard ever let one through', async () => {
    db = await Database.open({ memoryLimitMb: 64, threads: 1 }, MIRROR_TABLES);
    await expect(db.people.run("SELECT * FROM read_csv('/etc/passwd')")).rejects.toThrow(/disabled by configuration|Permission/);
    await expect(db.people.run('SET enable_external_access = true')).rejects.toThrow(/locked|Cannot change/);
    await expect(db.people.run("ATTACH '/tmp/svc-mcp-attach.db' AS other")).rejects.toThrow(/disabled|Permission/);
    await expect(db.people.run('INSTALL httpfs')).rejects.toThrow();
  });
});

describe('every mirror within SVC_MIRROR_MAX_MB', () => {
  it('drops the least recently used first, and says so when asked about it again', async () => {
    const registry = new MirrorRegistry({ config: { mirror: 'memory', mirrorMaxMb: 16, stateDir: os.tmpdir() }, tables: MIRROR_TABLES, logger: createLogger('silent') });
    const first = await registry.get('svc_first');
    const second = await registry.get('svc_second');
    await first.apply(batch(1));
    await second.apply(batch(2));
    first.lastUsed = 1;
    // Two mirrors of a few KB each fit 16 MB; a limit below what one holds leaves only the one in use.
    (registry as unknown as { options: { config: { mirrorMaxMb: number } } }).options.config.mirrorMaxMb = 0;
    await registry.fitMemory(second);
    expect(await registry.held('svc_first')).toBeUndefined();
    expect(await registry.held('svc_second')).toBe(second);
    expect(registry.droppedFor('svc_first')?.reason).toMatch(/least recently used/);
    expect(registry.droppedFor('svc_second')).toBeUndefined();
    await registry.closeAll();
  });
});

describe('the progress of a long call', () => {
  it('speaks at least every 5 s while it waits, always higher, and moves its estimate by at most half at a time', async () => {
    vi.useFakeTimers();
    try {
      const sent: Array<{ progress: number; total?: number }> = [];
      const context = { config: { rateLimit: { limit: 100, windowMs: 60_000 } }, progress: async (update: { progress: number; total?: number }) => void sent.push(update) } as unknown as ToolContext;
      const progress = new RequestProgress(context, 'Sync');
      progress.expect(3);
      await progress.request(10, 2);
      await vi.advanceTimersByTimeAsync(61_000);
      await progress.request(10, 400);
      await progress.request(10, 380);
      await vi.advanceTimersByTimeAsync(12_000);
      await progress.request(10, 10);
      progress.stop();
      for (let index = 1; index < sent.length; index++) {
        expect(sent[index].progress).toBeGreaterThan(sent[index - 1].progress);
        expect(sent[index].total!).toBeLessThanOrEqual(Math.floor(sent[index - 1].total! * 1.5));
        expect(sent[index].total!).toBeGreaterThanOrEqual(Math.ceil(sent[index - 1].total! * 0.5));
      }
      // 61 s of waiting: at least 12 notifications in it.
      expect(sent.length).toBeGreaterThanOrEqual(12 + 4);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the windows a mirror holds', () => {
  it('after any reads, cover exactly what was read, without overlap, each instant as of its latest reading', () => {
    const read = fc.record({ botId: fc.constantFrom('a', 'b'), since: fc.integer({ min: 0, max: 90 }), length: fc.integer({ min: 0, max: 30 }) });
    fc.assert(
      fc.property(fc.array(read, { maxLength: 12 }), (reads) => {
        let held: HeldWindow[] = [];
        const latest = new Map<string, number>();
        reads.forEach((entry, time) => {
          const window = { botId: entry.botId, since: entry.since, until: entry.since + entry.length, syncedAt: time };
          held = withRead(held, window);
          for (let instant = window.since; instant <= window.until; instant++) latest.set(`${entry.botId}@${instant}`, time);
        });
        for (const botId of ['a', 'b']) {
          const own = held.filter((window) => window.botId === botId).sort((x, y) => x.since - y.since);
          for (let index = 1; index < own.length; index++) expect(own[index].since).toBeGreaterThan(own[index - 1].until);
          for (let instant = 0; instant <= 121; instant++) {
            const covering = own.find((window) => window.since <= instant && instant <= window.until);
            expect(covering?.syncedAt).toBe(latest.get(`${botId}@${instant}`));
          }
          expect(gaps({ since: 0, until: 121 }, own).every((gap) => !latest.has(`${botId}@${gap.since}`))).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});
