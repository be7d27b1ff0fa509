/**
 * People's SQL over a mirror: one SELECT statement that reads the mirror's tables and nothing else.
 * The engine's own parser reads it (json_serialize_sql, which serialises SELECT statements only),
 * and the tree is walked: every table it names must be one of the workspace's tables or a CTE it
 * defines where the engine binds it; no table function but the row generators; no function that
 * reads settings, variables, the catalog or files, or builds a value as large as an argument asks;
 * at most MAX_TABLE_READS table reads once CTEs are expanded. The database refuses file and network
 * access and locks its settings besides (database.ts), so a gap here still reaches no file, URL,
 * setting or other workspace; and it runs in the workspace's own process, which is ended past its
 * memory ceiling or its time limit (remote.ts), so a cost the guard cannot see takes down no more.
 */

/** Table functions that only generate rows (a calendar of days): bounded by the query's time and memory limits. */
const ROW_GENERATORS = new Set(['range', 'generate_series', 'unnest']);

/**
 * The most table reads a statement may expand to, a CTE counting once per use. The engine plans
 * before it runs and does not stop planning when interrupted: 100 joins took 0.8 s to plan, 150
 * took 5 s, and 16 CTEs each joining the one before twice (816 characters) took 11 s past a 2 s
 * interrupt. 64 reads plan in about 0.1 s.
 */
export const MAX_TABLE_READS = 64;

/** Functions that reveal the engine's settings, catalog, variables or environment, touch files, write its log, or sleep. */
const REFUSED_FUNCTION =
  /^(duckdb_|pragma_|pg_|has_|current_setting$|getvariable$|getenv$|read_|glob$|sniff_csv$|parquet_|query$|query_table$|which_secret$|current_database$|current_catalog$|current_schemas?$|current_query|current_connection_id$|current_transaction_id$|in_search_path$|get_block_size$|write_log$|col_description$|obj_description$|shobj_description$|icu_|test_|enable_|disable_|checkpoint$|force_checkpoint$|make_timestamp_ns$|txid_current$)/i;

/**
 * Functions whose one call builds a value as large as an argument says, in memory the engine's
 * limit does not count and in a call its interrupt does not stop: `list_resize([1], 100000000)` took
 * 8.5 GB and 28 s past a 3 s interrupt, `printf('%500000000d', 1)` 1 GB. None has a use over the
 * mirror's data that strftime, concat or a CASE does not serve: refused here, they cost no host its end.
 */
const SIZED_BY_ARGUMENT = new Set(['list_resize', 'array_resize', 'repeat', 'lpad', 'rpad', 'printf', 'format', 'bitstring']);

/** Kinds of FROM item a statement may use; anything else (a catalog listing, a bound or internal scan) is refused. */
const TABLE_KINDS = new Set(['BASE_TABLE', 'JOIN', 'SUBQUERY', 'TABLE_FUNCTION', 'EXPRESSION_LIST', 'EMPTY', 'PIVOT', 'SHOW_REF']);

/** Nesting beyond this is refused before it is walked, so the walk's own stack stays small. */
const MAX_DEPTH = 2000;

export interface SqlVerdict {
  ok: boolean;
  /** Why it was refused, naming what it named. */
  reason?: string;
}

/** CTE names visible at a point of the statement, each with the table reads one use of it expands to. */
type Scope = ReadonlyMap<string, number>;

class Refusal extends Error {}

/** Judges a parsed statement (the JSON json_serialize_sql returns) against the tables people may read. */
export function judgeSql(tree: unknown, tables: ReadonlySet<string>): SqlVerdict {
  if (!isObject(tree)) return refused('the statement could not be read');
  if (tree.error === true) {
    const message = String(tree.error_message ?? '');
    return refused(/only SELECT/i.test(message) ? 'only a SELECT (or WITH ... SELECT) statement may run; nothing that writes, attaches, copies, sets or loads' : `it does not parse: ${message}`);
  }
  const statements = Array.isArray(tree.statements) ? tree.statements : [];
  if (statements.length !== 1) return refused(`one statement at a time (this text holds ${statements.length})`);
  const lowerTables = new Set([...tables].map((name) => name.toLowerCase()));
  try {
    const reads = walk(statements, new Map(), lowerTables, 0);
    if (reads > MAX_TABLE_READS)
      return refused(`the statement reads tables ${reads > 1e6 ? 'more than a million' : reads} times (a CTE counts each time it is used); at most ${MAX_TABLE_READS}: aggregate in fewer steps`);
  } catch (error) {
    if (error instanceof Refusal) return refused(error.message);
    throw error;
  }
  return { ok: true };
}

/**
 * Walks a node, judging every table, FROM item and function, and returns the table reads it
 * expands to. A CTE is visible only where the engine binds it: in the query that defines it, and
 * in the CTEs after it in the same WITH (itself too when recursive). Elsewhere the same name is
 * the catalog's, and judged as a table.
 */
function walk(node: unknown, scope: Scope, tables: ReadonlySet<string>, depth: number): number {
  if (depth > MAX_DEPTH) throw new Refusal('the statement is nested too deep');
  if (Array.isArray(node)) return node.reduce((sum: number, item) => sum + walk(item, scope, tables, depth + 1), 0);
  if (!isObject(node)) return 0;
  let inner = scope;
  let reads = 0;
  if (isObject(node.cte_map) && Array.isArray(node.cte_map.map) && node.cte_map.map.length) {
    const defined = new Map(scope);
    for (const entry of node.cte_map.map) {
      if (!isObject(entry) || typeof entry.key !== 'string') throw new Refusal('a CTE could not be read');
      const name = entry.key.toLowerCase();
      const body = isObject(entry.value) && isObject(entry.value.query) ? entry.value.query.node : undefined;
      const own = isObject(body) && body.type === 'RECURSIVE_CTE_NODE' ? new Map(defined).set(name, 1) : defined;
      defined.set(name, walk(entry.value, own, tables, depth + 1));
    }
    inner = defined;
  }
  if (isTableRef(node)) {
    const kind = String(node.type);
    if (!TABLE_KINDS.has(kind)) throw new Refusal(`a FROM item of kind ${kind} cannot be used`);
    if (kind === 'BASE_TABLE') reads += judgeTable(node, tables, scope);
    else if (kind === 'TABLE_FUNCTION') reads += judgeTableFunction(node);
    else if (kind === 'SHOW_REF' && String(node.table_name ?? '') !== '') reads += judgeTable(node, tables, scope);
  } else if (node.class === 'FUNCTION') {
    judgeFunction(node);
  }
  for (const key in node) if (key !== 'cte_map') reads += walk(node[key], inner, tables, depth + 1);
  return reads;
}

/** FROM items carry an alias and a sample and are no expression; query nodes carry no alias. */
const isTableRef = (node: Record<string, unknown>): boolean => 'alias' in node && 'sample' in node && !('class' in node) && typeof node.type === 'string';

function judgeTable(node: Record<string, unknown>, tables: ReadonlySet<string>, scope: Scope): number {
  const name = String(node.table_name ?? '');
  const catalog = String(node.catalog_name ?? '');
  const schema = String(node.schema_name ?? '');
  const lower = name.toLowerCase();
  const cte = catalog === '' && schema === '' ? scope.get(lower) : undefined;
  if (cte !== undefined) return cte;
  if (catalog !== '' || (schema !== '' && schema.toLowerCase() !== 'main')) throw new Refusal(`only this workspace's tables can be read (not ${[catalog, schema, name].filter(Boolean).join('.')})`);
  if (tables.has(lower)) return 1;
  throw new Refusal(`"${name}" is not a table of the mirror; its tables are ${[...tables].sort().join(', ')} (svc://mirror/schema)`);
}

function judgeTableFunction(node: Record<string, unknown>): number {
  const call = isObject(node.function) ? node.function : {};
  const name = String(call.function_name ?? '').toLowerCase();
  if (String(call.catalog ?? '') === '' && String(call.schema ?? '') === '' && ROW_GENERATORS.has(name)) return 1;
  throw new Refusal(`table function ${name || '(unnamed)'}() cannot be used: only the mirror's tables, and range/generate_series/unnest, can be read`);
}

function judgeFunction(node: Record<string, unknown>): void {
  const name = String(node.function_name ?? '');
  if (String(node.catalog ?? '') !== '' || (String(node.schema ?? '') !== '' && String(node.schema).toLowerCase() !== 'main')) {
    throw new Refusal(`function ${name} must not name a catalog or schema`);
  }
  if (REFUSED_FUNCTION.test(name)) throw new Refusal(`function ${name}() is not available to queries: it reaches the engine's settings, catalog, log or files, or sleeps`);
  if (SIZED_BY_ARGUMENT.has(name.toLowerCase())) throw new Refusal(`function ${name}() is not available to queries: it builds a value as large as its argument asks, outside the memory limit`);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const refused = (reason: string): SqlVerdict => ({ ok: false, reason });
