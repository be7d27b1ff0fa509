/**
 * The MCP Inspector's schema portability check (2.12, `core/json/schemaLint.ts`, which it runs on
 * every tools/list and with `--strict`), as rules of our own: not a JSON Schema validator, but what
 * some clients read differently or refuse. A bare `true`/`false` where a schema object is expected
 * is an error; `type` as a list of types, a `$ref` to another document and a schema that
 * constrains nothing are warnings.
 */
/** Keywords under which a boolean is the usual spelling, not a stand-in for a schema. */
const BOOLEAN_ALLOWED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SUBSCHEMA = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'contentSchema', ...BOOLEAN_ALLOWED];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
/** Keywords that narrow what a schema accepts (`if` counts only with `then` or `else`). */
const CONSTRAINING = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  ...SUBSCHEMA.filter((key) => !['if', 'then', 'else'].includes(key)),
  ...SUBSCHEMA_LISTS,
  ...SUBSCHEMA_MAPS.filter((key) => !key.endsWith('efs') && key !== 'definitions'),
]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the portability check would say of one schema, one `path: finding` line each. */
export function portabilityFindings(schema: unknown, path = '', keyword?: string): string[] {
  if (typeof schema === 'boolean') return keyword && BOOLEAN_ALLOWED.has(keyword) ? [] : [`${path}: bare ${schema} where a schema object is expected (error)`];
  if (!isObject(schema)) return [];
  const found: string[] = [];
  if (Array.isArray(schema.type)) found.push(`${path}: type is a list ${JSON.stringify(schema.type)}`);
  if (typeof schema.$ref === 'string' && !schema.$ref.startsWith('#')) found.push(`${path}: $ref to another document`);
  const constrains = Object.keys(schema).some((key) => CONSTRAINING.has(key)) || ('if' in schema && ('then' in schema || 'else' in schema));
  if (!constrains && keyword !== 'not') found.push(`${path}: constrains nothing`);
  for (const key of SUBSCHEMA_MAPS) {
    if (isObject(schema[key])) for (const [name, sub] of Object.entries(schema[key])) found.push(...portabilityFindings(sub, `${path}.${key}.${name}`, key));
  }
  for (const key of SUBSCHEMA_LISTS) {
    if (Array.isArray(schema[key])) for (const [index, sub] of schema[key].entries()) found.push(...portabilityFindings(sub, `${path}.${key}[${index}]`, key));
  }
  for (const key of SUBSCHEMA) {
    if (!(key in schema)) continue;
    const sub = schema[key];
    if (Array.isArray(sub)) for (const [index, item] of sub.entries()) found.push(...portabilityFindings(item, `${path}.${key}[${index}]`, key));
    else found.push(...portabilityFindings(sub, `${path}.${key}`, key));
  }
  return found;
}
