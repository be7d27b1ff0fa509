/**
 * What a mirror holds, as the catalog declares it (tools/lib/mirror/tables.ts): plain tables whose
 * columns carry the API's field names, and the changes that keep them true. The engine knows no
 * table of its own; it checks every name a change uses against these definitions.
 */

/** Column types in the catalog's words: epoch-ms times become SQL timestamps (UTC), lists of text stay lists. */
export const COLUMN_TYPES = ['text', 'time', 'flag', 'number', 'integer', 'json', 'texts'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface ColumnDefinition {
  name: string;
  type: ColumnType;
  /** One short line for svc://mirror/schema. */
  about: string;
  /** Seldom asked for: named in svc://mirror/schema only, not in query_workspace's description. */
  rare?: boolean;
}

export interface TableDefinition {
  name: string;
  about: string;
  columns: ColumnDefinition[];
  /** The mirror's own bookkeeping (what was synced when): people's SQL cannot read it. */
  internal?: boolean;
}

export type Value = string | number | boolean | null | undefined | readonly unknown[] | Readonly<Record<string, unknown>>;
/** One row, its values in the table's column order. */
export type Row = readonly Value[];

/** Rows to match: a column equal to a value, among values, or (times) within an inclusive epoch-ms range. */
export type Condition = Record<string, Value | { in: readonly Value[] } | { from: number; to: number }>;

/**
 * One change to a mirror. `put` replaces every row whose `key` column holds one of `keys` by `rows`
 * (a conversation's events by its id, so an event gone upstream goes here too); `insert` adds rows
 * (a journal rewritten from what the mirror holds); `replace` swaps every row of a table for
 * `rows` (a fresh listing of agents); `delete` and `update` act on the rows a condition matches.
 */
export type Change =
  | { put: string; key: string; keys: readonly Value[]; rows: readonly Row[] }
  | { insert: string; rows: readonly Row[] }
  | { replace: string; rows: readonly Row[] }
  | { delete: string; where: Condition }
  | { update: string; set: Readonly<Record<string, Value>>; where: Condition };
