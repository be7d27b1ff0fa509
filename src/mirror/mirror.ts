import { quoteName, QueryRefused, type Param, type Plain, type QueryAnswer, type QueryLimits, type TransactionStep } from './database.js';
import { judgeSql } from './guard.js';
import type { Journal } from './journal.js';
import type { RemoteDatabase } from './remote.js';
import type { Change, Condition, TableDefinition, Value } from './schema.js';

/** Rows a snapshot reads at a time when the journal is rewritten. */
const SNAPSHOT_ROWS = 5000;

/**
 * One workspace's mirror: its database, the tables the catalog declared, and, on disk, the journal
 * every change is written to. Changes are checked against the declared names (the only text that
 * reaches SQL unbound); values are always bound. Syncs of the workspace run one at a time through
 * `exclusive`; people's queries run on their own connection, one at a time, under a time limit.
 */
export class WorkspaceMirror {
  lastUsed = Date.now();
  /** When a request with the key last succeeded: a mirror answers a key the API may since have revoked only this long after. */
  verifiedAt = 0;
  private readonly tables: Map<string, TableDefinition>;
  private readonly readable: Set<string>;
  private syncing: Promise<unknown> = Promise.resolve();
  private querying: Promise<unknown> = Promise.resolve();

  constructor(
    /** Names the mirror in logs and status, never the key: an HMAC of it. */
    readonly id: string,
    private readonly db: RemoteDatabase,
    tables: readonly TableDefinition[],
    private readonly journal?: Journal,
  ) {
    this.tables = new Map(tables.map((table) => [table.name, table]));
    this.readable = new Set(tables.filter((table) => !table.internal).map((table) => table.name));
  }

  get onDisk(): boolean {
    return this.journal !== undefined;
  }

  /** Applies one batch of changes in a transaction, then writes it to the journal (on disk). */
  async apply(changes: readonly Change[]): Promise<void> {
    if (changes.length === 0) return;
    await this.restore(changes);
    this.journal?.append(changes);
  }

  /** Applies a batch read back from the journal, which already holds it. */
  async restore(changes: readonly Change[]): Promise<void> {
    await this.db.transaction(changes.flatMap((change) => this.stepsOf(change)));
  }

  /** The mirror's own reads (never people's text): plain rows. A list of values binds as a list of text. */
  async rows(sql: string, values: ReadonlyArray<string | number | boolean | null | readonly string[]> = []): Promise<Array<Record<string, Plain>>> {
    this.lastUsed = Date.now();
    return this.db.rows(
      sql,
      values.map((value) => (Array.isArray(value) ? textList(value) : (value as Param))),
    );
  }

  /** Runs `work` once every earlier `exclusive` work of this workspace has ended: one sync at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.syncing.then(work, work);
    this.syncing = run.catch(() => undefined);
    return run;
  }

  /** People's SQL: judged first (one read-only SELECT over the workspace's tables), then run under the limits. */
  async query(sql: string, limits: QueryLimits): Promise<QueryAnswer> {
    this.lastUsed = Date.now();
    const verdict = judgeSql(await this.db.parse(sql), this.readable);
    if (!verdict.ok) throw new QueryRefused(`Refused: ${verdict.reason}. Nothing was run.`);
    const run = this.querying.then(() => this.db.query(sql, limits));
    this.querying = run.catch(() => undefined);
    return run;
  }

  memoryBytes(): Promise<number> {
    return this.db.memoryBytes();
  }

  /** After a sync: storage compacted, and the journal rewritten from what is held once it has grown past it. */
  async settle(): Promise<void> {
    await this.db.compact();
    if (this.journal?.wantsRewrite) this.journal.rewrite(await this.snapshot());
  }

  /** What the mirror holds now, as inserts a replay rebuilds it from. */
  private async snapshot(): Promise<Change[][]> {
    const batches: Change[][] = [];
    for (const table of this.tables.values()) {
      const select = table.columns.map((column) => (column.type === 'time' ? `epoch_ms(${quoteName(column.name)}) AS ${quoteName(column.name)}` : quoteName(column.name))).join(', ');
      for (let offset = 0; ; offset += SNAPSHOT_ROWS) {
        const rows = await this.db.rows(`SELECT ${select} FROM ${quoteName(table.name)} ORDER BY rowid LIMIT ${SNAPSHOT_ROWS} OFFSET ${offset}`);
        if (rows.length === 0) break;
        batches.push([{ insert: table.name, rows: rows.map((row) => table.columns.map((column) => storedValue(column.type, row[column.name]))) }]);
        if (rows.length < SNAPSHOT_ROWS) break;
      }
    }
    return batches;
  }

  /** Forgets the mirror for good (memory, and the journal on disk). */
  discard(): void {
    this.journal?.discard();
    this.db.close();
  }

  close(): void {
    this.journal?.close();
    this.db.close();
  }

  private stepsOf(change: Change): TransactionStep[] {
    if ('put' in change) {
      const table = this.table(change.put);
      this.column(table, change.key);
      const removed: TransactionStep[] = change.keys.length
        ? [{ run: `DELETE FROM ${quoteName(table.name)} WHERE ${quoteName(change.key)} IN (SELECT unnest($1))`, values: [textList(change.keys)] }]
        : [];
      return [...removed, { append: table.name, rows: change.rows }];
    }
    if ('insert' in change) return [{ append: this.table(change.insert).name, rows: change.rows }];
    if ('replace' in change) {
      const table = this.table(change.replace);
      return [{ run: `DELETE FROM ${quoteName(table.name)}` }, { append: table.name, rows: change.rows }];
    }
    if ('delete' in change) {
      const table = this.table(change.delete);
      const where = this.where(table, change.where, 1);
      return [{ run: `DELETE FROM ${quoteName(table.name)} WHERE ${where.sql}`, values: where.values }];
    }
    const table = this.table(change.update);
    const set = Object.entries(change.set);
    const assignments = set.map(([name], index) => `${quoteName(this.column(table, name).name)} = $${index + 1}`);
    const values = set.map(([name, value]) => bound(this.column(table, name).type, value));
    const where = this.where(table, change.where, set.length + 1);
    return [{ run: `UPDATE ${quoteName(table.name)} SET ${assignments.join(', ')} WHERE ${where.sql}`, values: [...values, ...where.values] }];
  }

  private table(name: string): TableDefinition {
    const table = this.tables.get(name);
    if (!table) throw new Error(`internal: the mirror has no table ${name}`);
    return table;
  }

  private column(table: TableDefinition, name: string) {
    const column = table.columns.find((candidate) => candidate.name === name);
    if (!column) throw new Error(`internal: table ${table.name} has no column ${name}`);
    return column;
  }

  private where(table: TableDefinition, condition: Condition, first: number): { sql: string; values: Param[] } {
    const parts: string[] = [];
    const values: Param[] = [];
    for (const [name, wanted] of Object.entries(condition)) {
      const column = this.column(table, name);
      const quoted = quoteName(column.name);
      if (wanted === null || wanted === undefined) {
        parts.push(`${quoted} IS NULL`);
      } else if (typeof wanted === 'object' && 'in' in wanted && Array.isArray(wanted.in)) {
        values.push(textList(wanted.in));
        parts.push(`${quoted} IN (SELECT unnest($${first + values.length - 1}))`);
      } else if (typeof wanted === 'object' && 'from' in wanted) {
        const range = wanted as { from: number; to: number };
        values.push(range.from, range.to);
        parts.push(`${quoted} BETWEEN epoch_ms(CAST($${first + values.length - 2} AS BIGINT)) AND epoch_ms(CAST($${first + values.length - 1} AS BIGINT))`);
      } else {
        values.push(bound(column.type, wanted as Value));
        parts.push(`${quoted} = $${first + values.length - 1}`);
      }
    }
    if (parts.length === 0) throw new Error('internal: a change must name the rows it acts on');
    return { sql: parts.join(' AND '), values };
  }
}

function textList(values: readonly Value[]): Param {
  return { texts: values.map((value) => String(value)) };
}

function bound(type: TableDefinition['columns'][number]['type'], value: Value): Param {
  if (value === null || value === undefined) return null;
  if (type === 'time') return { time: Number(value) };
  if (type === 'json') return JSON.stringify(value);
  if (type === 'texts') return textList(value as unknown[] as Value[]);
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** A value read back for a snapshot, in the form `apply` takes it (JSON columns come back as their text). */
function storedValue(type: TableDefinition['columns'][number]['type'], value: Plain): Value {
  if (type === 'json' && typeof value === 'string') {
    try {
      return JSON.parse(value) as Value;
    } catch {
      return value;
    }
  }
  return value as Value;
}
