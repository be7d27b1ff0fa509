/**
 * People's SQL over a mirror: one SELECT statement that reads the mirror's tables and nothing else.
 * The engine's own parser reads it (json_serialize_sql, which serialises SELECT statements only),
 * and the tree is walked: every table it names must be one of the workspace's tables or a CTE it
 * defines; no table function but the row generators; no function that reads settings, variables,
 * the catalog or files. The database refuses file and network access and locks its settings besides
 * (database.ts), so a gap here still reaches no file, URL, setting or other workspace.
 */

/** Table functions that only generate rows (a calendar of days): bounded by the query's time and memory limits. */
const ROW_GENERATORS = new Set(['range', 'generate_series', 'unnest']);

/** Functions that reveal the engine's settings, catalog, variables or environment, or touch files. */
const REFUSED_FUNCTION =
  /^(duckdb_|pragma_|current_setting$|getvariable$|getenv$|read_|glob$|sniff_csv$|parquet_|query$|query_table$|which_secret$|current_database$|current_catalog$|current_schemas?$|current_query$|icu_|test_|enable_|disable_|checkpoint$|force_checkpoint$|make_timestamp_ns$|txid_current$)/i;

export interface SqlVerdict {
  ok: boolean;
  /** Why it was refused, naming what it named. */
  reason?: string;
}

/** Judges a parsed statement (the JSON json_serialize_sql returns) against the tables people may read. */
export function judgeSql(tree: unknown, tables: ReadonlySet<string>): SqlVerdict {
  if (!isObject(tree)) return refused('the statement could not be read');
  if (tree.error === true) {
    const message = String(tree.error_message ?? '');
    return refused(/only SELECT/i.test(message) ? 'only a SELECT (or WITH ... SELECT) statement may run; nothing that writes, attaches, copies, sets or loads' : `it does not parse: ${message}`);
  }
  const statements = Array.isArray(tree.statements) ? tree.statements : [];
  if (statements.length !== 1) return refused(`one statement at a time (this text holds ${statements.length})`);
  const ctes = new Set<string>();
  collect(tree, (node) => {
    if (isObject(node.cte_map) && Array.isArray(node.cte_map.map)) {
      for (const entry of node.cte_map.map) if (isObject(entry) && typeof entry.key === 'string') ctes.add(entry.key.toLowerCase());
    }
  });
  const lowerTables = new Set([...tables].map((name) => name.toLowerCase()));
  let verdict: SqlVerdict = { ok: true };
  collect(tree, (node) => {
    if (!verdict.ok) return;
    if (node.type === 'BASE_TABLE') verdict = judgeTable(node, lowerTables, ctes);
    else if (node.type === 'TABLE_FUNCTION') verdict = judgeTableFunction(node);
    else if (node.class === 'FUNCTION') verdict = judgeFunction(node);
  });
  return verdict;
}

function judgeTable(node: Record<string, unknown>, tables: ReadonlySet<string>, ctes: ReadonlySet<string>): SqlVerdict {
  const name = String(node.table_name ?? '');
  const catalog = String(node.catalog_name ?? '');
  const schema = String(node.schema_name ?? '');
  if (catalog !== '' || (schema !== '' && schema.toLowerCase() !== 'main')) return refused(`only this workspace's tables can be read (not ${[catalog, schema, name].filter(Boolean).join('.')})`);
  const lower = name.toLowerCase();
  if ((schema === '' && ctes.has(lower)) || tables.has(lower)) return { ok: true };
  return refused(`"${name}" is not a table of the mirror; its tables are ${[...tables].sort().join(', ')} (svc://mirror/schema)`);
}

function judgeTableFunction(node: Record<string, unknown>): SqlVerdict {
  const call = isObject(node.function) ? node.function : {};
  const name = String(call.function_name ?? '').toLowerCase();
  if (String(call.catalog ?? '') === '' && String(call.schema ?? '') === '' && ROW_GENERATORS.has(name)) return { ok: true };
  return refused(`table function ${name || '(unnamed)'}() cannot be used: only the mirror's tables, and range/generate_series/unnest, can be read`);
}

function judgeFunction(node: Record<string, unknown>): SqlVerdict {
  const name = String(node.function_name ?? '');
  if (String(node.catalog ?? '') !== '' || (String(node.schema ?? '') !== '' && String(node.schema).toLowerCase() !== 'main')) {
    return refused(`function ${name} must not name a catalog or schema`);
  }
  if (REFUSED_FUNCTION.test(name)) return refused(`function ${name}() reads the engine's settings, catalog or files, which queries may not`);
  return { ok: true };
}

function collect(node: unknown, visit: (node: Record<string, unknown>) => void): void {
  const stack: unknown[] = [node];
  while (stack.length) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      stack.push(...current);
    } else if (isObject(current)) {
      visit(current);
      for (const key in current) stack.push(current[key]);
    }
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const refused = (reason: string): SqlVerdict => ({ ok: false, reason });
