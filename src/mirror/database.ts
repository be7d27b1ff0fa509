/**
 * One workspace's embedded analytical database (DuckDB, through @duckdb/node-api), locked down at
 * birth: in memory, no file or network access (so no spill file either), no extension loading, a
 * memory limit, its own threads, and the configuration locked so no statement can loosen any of it.
 * Each workspace gets an instance of its own, in a process of its own (host.ts, remote.ts): a query
 * of one can name nothing of another, and one that outgrows its limits takes only its own workspace down.
 *
 * The native engine is loaded on first use only, so a server that never asks the mirror anything
 * pays nothing for it at start, in memory or per call.
 */
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import type { ColumnType, Row, TableDefinition } from './schema.js';

type DuckDB = typeof import('@duckdb/node-api');

let loading: Promise<DuckDB> | undefined;

/** The engine's module, loaded once; rejects with a plain reason where the native package is missing (a bundle built for another platform). */
function loadEngine(): Promise<DuckDB> {
  loading ??= import('@duckdb/node-api').catch((error: unknown) => {
    loading = undefined;
    throw new MirrorUnavailable(`the analytical engine (@duckdb/node-api) could not be loaded on this platform: ${(error as Error).message.split('\n')[0]}`);
  });
  return loading;
}

export class MirrorUnavailable extends Error {
  override name = 'MirrorUnavailable';
}

export class QueryRefused extends Error {
  override name = 'QueryRefused';
}

export interface QueryLimits {
  maxRows: number;
  /** The statement is interrupted after this long. */
  timeoutMs: number;
}

export interface QueryAnswer {
  columns: Array<{ name: string; type: string }>;
  rows: Plain[][];
  /** At least one row beyond `maxRows` exists. */
  more: boolean;
  ms: number;
}

/** A bound value as it crosses to the engine's process: plain, with a list of text and a time (epoch ms) marked as such. */
export type Param = string | number | boolean | null | { texts: string[] } | { time: number };

/** One statement of a transaction, or rows appended to a table, in the column order it declares. */
export type TransactionStep = { run: string; values?: Param[] } | { append: string; rows: readonly Row[] };

export interface DatabaseOptions {
  memoryLimitMb: number;
  /** Threads a query of this workspace may use; few, so that one tenant's query cannot take the machine. */
  threads: number;
}

/** Values as the engine returns them to us: numbers (never bigint), strings, booleans, ISO times, arrays and objects. */
export type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };

/**
 * A workspace database and its two connections: one for the mirror's own reads and writes, run one
 * statement at a time, and one for people's SQL, which a time limit can interrupt without touching
 * a sync in progress.
 */
export class Database {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly tables: Map<string, TableDefinition>;

  private constructor(
    private readonly engine: DuckDB,
    private readonly instance: DuckDBInstance,
    private readonly own: DuckDBConnection,
    readonly people: DuckDBConnection,
    tables: readonly TableDefinition[],
  ) {
    this.tables = new Map(tables.map((table) => [table.name, table]));
  }

  static async open(options: DatabaseOptions, tables: readonly TableDefinition[]): Promise<Database> {
    const engine = await loadEngine();
    // Order matters: the temporary directory can only be turned off before file access is.
    const instance = await engine.DuckDBInstance.create(':memory:', {
      temp_directory: '',
      threads: String(options.threads),
      memory_limit: `${options.memoryLimitMb}MB`,
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      allow_community_extensions: 'false',
      enable_external_access: 'false',
    });
    const own = await instance.connect();
    // Compressed in memory: conversations repeat their agents' answers, so a year takes a fraction of its JSON.
    await own.run(`ATTACH ':memory:' AS workspace (COMPRESS); USE workspace; SET TimeZone = 'UTC'`);
    for (const table of tables) await own.run(createTableSql(table));
    // Memory freed after a checkpoint goes back to the system instead of staying with the allocator:
    // a year at 100,000 conversations grew the process by 184 MB without this, by 107 MB with it.
    await own.run("SET allocator_flush_threshold = '16MB'; SET allocator_background_threads = true");
    await own.run('SET lock_configuration = true');
    const people = await instance.connect();
    await people.run('USE workspace');
    return new Database(engine, instance, own, people, tables);
  }

  /** Runs on the mirror's own connection, after whatever it is already running. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The mirror's own read: rows as plain objects. */
  rows(sql: string, values: Param[] = []): Promise<Array<Record<string, Plain>>> {
    return this.exclusive(async () => plainRows(await this.own.runAndReadAll(sql, this.bound(values))));
  }

  /** Several steps in one transaction; rolled back whole if one fails. */
  transaction(steps: readonly TransactionStep[]): Promise<void> {
    return this.exclusive(async () => {
      await this.own.run('BEGIN TRANSACTION');
      try {
        for (const step of steps) {
          if ('run' in step) await this.own.run(step.run, this.bound(step.values ?? []));
          else await this.append(step.append, step.rows);
        }
        await this.own.run('COMMIT');
      } catch (error) {
        await this.own.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * People's SQL, already judged by the guard, on its own connection: interrupted at the time
   * limit, and read to one row past `maxRows` so that the answer can say more exist.
   */
  async query(sql: string, limits: QueryLimits): Promise<QueryAnswer> {
    const started = Date.now();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.people.interrupt();
    }, limits.timeoutMs);
    try {
      const reader = await this.people.streamAndReadUntil(sql, limits.maxRows + 1);
      const names = reader.columnNames();
      const types = reader.columnTypes().map(String);
      const read = reader.getRowsJS();
      const rows = read.slice(0, limits.maxRows).map((row) => row.map(toPlain));
      return { columns: names.map((name, index) => ({ name, type: types[index] })), rows, more: read.length > limits.maxRows, ms: Date.now() - started };
    } catch (error) {
      const message = (error as Error).message.split('\n')[0];
      if (timedOut) throw new QueryRefused(`Stopped after ${limits.timeoutMs / 1000} s, the time limit of a query; narrow it (a WHERE on createdAt, fewer joins).`);
      if (/out of memory/i.test(message))
        throw new QueryRefused(`Stopped: the query needs more memory than the mirror may use (SVC_MIRROR_MAX_MB); aggregate before joining, or narrow it. (${message})`);
      throw new QueryRefused(`The query failed: ${message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private bound(values: readonly Param[]): DuckDBValue[] {
    return values.map((value) => {
      if (value === null || typeof value !== 'object') return value;
      if ('texts' in value) return this.engine.listValue(value.texts);
      return this.engine.timestampValue(BigInt(Math.trunc(value.time)) * 1000n);
    });
  }

  private async append(name: string, rows: readonly Row[]): Promise<void> {
    const table = this.tables.get(name);
    if (!table) throw new Error(`internal: the mirror has no table ${name}`);
    if (rows.length === 0) return;
    const appender = await this.own.createAppender(table.name);
    try {
      for (const row of rows) {
        for (let index = 0; index < table.columns.length; index++) appendValue(this.engine, appender, table.columns[index].type, row[index]);
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /** Folds what was deleted and appended since into compressed storage, so memory follows the data held. */
  compact(): Promise<void> {
    return this.exclusive(async () => void (await this.own.run('CHECKPOINT')));
  }

  /** Parses SQL with the engine's own parser, to JSON (SELECT statements only), without running it. */
  async parse(sql: string): Promise<unknown> {
    const [row] = await this.rows('SELECT json_serialize_sql($1::VARCHAR) AS tree', [sql]);
    return JSON.parse(String(row.tree));
  }

  close(): void {
    this.people.closeSync();
    this.own.closeSync();
    this.instance.closeSync();
  }
}

const SQL_TYPES: Record<ColumnType, string> = {
  text: 'VARCHAR',
  time: 'TIMESTAMP',
  flag: 'BOOLEAN',
  number: 'DOUBLE',
  integer: 'INTEGER',
  json: 'JSON',
  texts: 'VARCHAR[]',
};

function createTableSql(table: TableDefinition): string {
  return `CREATE TABLE ${quoteName(table.name)} (${table.columns.map((column) => `${quoteName(column.name)} ${SQL_TYPES[column.type]}`).join(', ')})`;
}

/** Names are the schema's own (camelCase, as the API names its fields): quoted so their case holds. */
export function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

let textListType: DuckDBType | undefined;

function appendValue(engine: DuckDB, appender: DuckDBAppender, type: ColumnType, value: Row[number]): void {
  if (value === null || value === undefined) {
    appender.appendNull();
  } else if (type === 'time') {
    appender.appendTimestamp(engine.timestampValue(BigInt(Math.trunc(Number(value))) * 1000n));
  } else if (type === 'flag') {
    appender.appendBoolean(Boolean(value));
  } else if (type === 'number') {
    appender.appendDouble(Number(value));
  } else if (type === 'integer') {
    appender.appendInteger(Math.trunc(Number(value)));
  } else if (type === 'texts') {
    textListType ??= engine.LIST(engine.VARCHAR);
    appender.appendList(
      (value as unknown[]).map((item) => String(item)),
      textListType as InstanceType<DuckDB['DuckDBListType']>,
    );
  } else {
    appender.appendVarchar(type === 'json' ? JSON.stringify(value) : String(value));
  }
}

/** Rows of a result as plain JSON-ready objects: bigints as numbers (strings beyond 2^53), times as ISO text. */
function plainRows(reader: { getRowObjectsJS(): Array<Record<string, unknown>> }): Array<Record<string, Plain>> {
  return reader.getRowObjectsJS().map((row) => {
    const plain: Record<string, Plain> = {};
    for (const key in row) plain[key] = toPlain(row[key]);
    return plain;
  });
}

function toPlain(value: unknown): Plain {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'object') {
    const plain: Record<string, Plain> = {};
    for (const [key, item] of Object.entries(value)) plain[key] = toPlain(item);
    return plain;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value as string | number | boolean;
}
