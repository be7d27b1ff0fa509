import { z } from 'zod';

let pinnedNow: number | undefined;

/**
 * Runs a synchronous parse with "now" fixed, so that every relative time and defaulted window
 * of one call resolves against the same instant (`since: "90d"` then spans exactly 90 days).
 */
export function withClock<T>(now: number, parse: () => T): T {
  const outer = pinnedNow;
  pinnedNow = now;
  try {
    return parse();
  } finally {
    pinnedNow = outer;
  }
}

/** The instant of the call being validated, or the wall clock outside validation. */
export function clockNow(): number {
  return pinnedNow ?? Date.now();
}

export const DAY_MS = 86_400_000;

const RELATIVE_UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };

/**
 * Epoch milliseconds from epoch ms (number or digits), ISO 8601, `now`, or a relative age such
 * as `7d`, `24h`, `30m` (that long before `now`). Returns undefined when the text is none of these.
 */
export function parseTime(value: unknown, now = clockNow()): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === 'now') return now;
  if (/^\d{10,}$/.test(text)) return Number(text);
  const relative = /^-?(\d+(?:\.\d+)?)\s*([smhdw])(?:\s+ago)?$/i.exec(text);
  if (relative) return Math.round(now - Number(relative[1]) * RELATIVE_UNIT_MS[relative[2].toLowerCase()]);
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const parsed = Date.parse(text);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return undefined;
}

/** The earliest time any input may name: the epoch, where the spec's epoch milliseconds begin (it sets no later floor). */
export const EARLIEST_TIME_MS = 0;
/** How far past the call's clock a time input may reach (one year, for scheduled ends of windows). */
export const LATEST_TIME_AHEAD_MS = 366 * DAY_MS;

/**
 * Inputs that take a number or text but are listed as text alone: strict clients want one JSON type
 * per field (src/engine/schema.ts lists them so), and a number still validates.
 */
export const LISTED_AS_TEXT = new WeakSet<z.ZodTypeDef>();

/**
 * A time input: listed as text, taken as epoch ms too, and arriving in handlers as epoch ms, always
 * from 1970-01-01 to one year after now, so no later stage plans over an absurd span.
 */
export function timeInput(description: string) {
  const epochOrText = z.union([z.number(), z.string()]);
  LISTED_AS_TEXT.add(epochOrText._def);
  return epochOrText
    .transform((value, context) => {
      const parsed = parseTime(value);
      if (parsed === undefined) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: 'must be epoch milliseconds, an ISO 8601 time, or a relative age such as 7d, 24h or 30m' });
        return z.NEVER;
      }
      const latest = clockNow() + LATEST_TIME_AHEAD_MS;
      if (parsed < EARLIEST_TIME_MS || parsed > latest) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: `must be from 1970-01-01 to ${new Date(latest).toISOString().slice(0, 10)} (one year from now)` });
        return z.NEVER;
      }
      return parsed;
    })
    .describe(`${description} Epoch ms, ISO or age (7d).`);
}

/** A required id: non-empty after trimming. Described only where its name does not say what it identifies. */
export function idInput(description?: string) {
  const id = z.string().trim().min(1, 'must not be empty');
  return description ? id.describe(description) : id;
}

/** A list of ids (or other non-empty items), each non-empty after trimming. */
export function idList(description?: string) {
  const ids = z.array(z.string().trim().min(1, 'must not be empty'));
  return description ? ids.describe(description) : ids;
}

const SCHEMA_WRAPPERS = new Set(['ZodOptional', 'ZodNullable', 'ZodDefault', 'ZodEffects', 'ZodBranded', 'ZodReadonly', 'ZodCatch', 'ZodPipeline']);

/** The schema under optional/default/effects wrappers, which decides what a string should become. */
function baseSchema(schema: z.ZodTypeAny): z.ZodTypeAny {
  let current = schema;
  while (SCHEMA_WRAPPERS.has(current._def.typeName)) {
    const def = current._def;
    current = def.innerType ?? def.schema ?? def.type ?? def.in;
  }
  return current;
}

/** The object shape of a tool input, looking through refinements. */
export function objectShape(schema: z.ZodTypeAny): z.ZodRawShape {
  const base = baseSchema(schema);
  return base instanceof z.ZodObject ? base.shape : {};
}

/** Limits on the raw arguments of one call, checked before any other stage walks them. */
export const ARGUMENT_LIMITS = {
  /** Levels of nested objects and arrays. */
  depth: 32,
  /** Characters of every string and field name together. */
  chars: 1_000_000,
  /** Values (objects, arrays and scalars) together. */
  values: 50_000,
} as const;

/** Field names that reach object prototypes: refused in every payload, pass-through ones included. */
export const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Problems with the raw arguments' shape, one `- field: rule` line each: prototype field names
 * anywhere, nesting beyond the depth limit, and more text or values than the limits allow
 * (named by the top-level field that carries most of it). Walks at most `depth` levels, so a
 * hostile shape costs no stack.
 */
export function argumentProblems(args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const weight = new Map<string, number>();
  let chars = 0;
  let values = 0;
  const walk = (value: unknown, path: Array<string | number>, top: string) => {
    values++;
    let own = 0;
    if (typeof value === 'string') own = value.length;
    else if (value !== null && typeof value === 'object') {
      if (path.length >= ARGUMENT_LIMITS.depth) {
        problems.push(`- ${fieldPath(path)}: nested deeper than ${ARGUMENT_LIMITS.depth} levels`);
        return;
      }
      for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
        if (typeof key === 'string') {
          own += key.length;
          if (PROTOTYPE_NAMES.has(key)) problems.push(`- ${fieldPath([...path, key])}: "${key}" is not allowed as a field name`);
        }
        walk(item, [...path, key], top);
        if (problems.length > 20 || values > ARGUMENT_LIMITS.values) break;
      }
    }
    chars += own;
    weight.set(top, (weight.get(top) ?? 0) + own + 1);
  };
  for (const [key, value] of Object.entries(args)) {
    if (PROTOTYPE_NAMES.has(key)) problems.push(`- ${key}: "${key}" is not allowed as a field name`);
    walk(value, [key], key);
  }
  if (chars > ARGUMENT_LIMITS.chars || values > ARGUMENT_LIMITS.values) {
    const [heaviest] = [...weight.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['input'];
    problems.push(`- ${heaviest}: too large: the arguments may hold at most ${ARGUMENT_LIMITS.chars.toLocaleString('en')} characters and ${ARGUMENT_LIMITS.values.toLocaleString('en')} values`);
  }
  return [...new Set(problems)];
}

/**
 * Fields the schema does not know, by path: in objects whose payload is documented (strict or
 * default zod objects). Pass-through objects (payloads the spec does not show) keep theirs.
 */
export function unknownFields(schema: z.ZodTypeAny, value: unknown, path: Array<string | number> = []): string[] {
  const base = baseSchema(schema);
  if (base instanceof z.ZodObject && isPlainObject(value)) {
    const shape = base.shape as z.ZodRawShape;
    const found: string[] = [];
    for (const [key, item] of Object.entries(value)) {
      if (Object.hasOwn(shape, key)) found.push(...unknownFields(shape[key], item, [...path, key]));
      else if (base._def.unknownKeys !== 'passthrough') found.push(fieldPath([...path, key]));
    }
    return found;
  }
  if (base instanceof z.ZodArray && Array.isArray(value)) return value.flatMap((item, index) => unknownFields(base.element, item, [...path, index]));
  if (base instanceof z.ZodRecord && isPlainObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => unknownFields(base.valueSchema, item, [...path, key]));
  }
  return [];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field name that reads unambiguously in a dotted path. */
const PLAIN_NAME = /^[A-Za-z_$][\w$-]*$/;

/** `field.sub[2]`, as errors name fields. */
export function fieldPath(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((text, part) => {
    if (typeof part === 'number') return `${text}[${part}]`;
    // A key that is not a plain name (a colon, a space, a dot, quotes) is quoted, so the line stays unambiguous.
    if (!PLAIN_NAME.test(part)) return `${text}[${JSON.stringify(part)}]`;
    return text ? `${text}.${part}` : part;
  }, '');
}

/**
 * Clients sometimes send objects and arrays as JSON text, a single value where a list is
 * expected, and numbers or booleans as strings.
 * Those are converted where the schema wants the parsed type; anything else is left for the
 * validator to report.
 */
export function coerceToSchema(schema: z.ZodTypeAny, value: unknown, parsedJson?: unknown[]): unknown {
  const base = baseSchema(schema);
  if (base instanceof z.ZodUnion) {
    const options = base.options as z.ZodTypeAny[];
    if (options.some((option) => option.safeParse(value).success)) return value;
    return options.reduce((current, option) => (current === value ? coerceToSchema(option, value, parsedJson) : current), value);
  }
  let current = value;
  if (typeof current === 'string') {
    const text = current.trim();
    if ((base instanceof z.ZodObject || base instanceof z.ZodRecord) && text.startsWith('{')) current = tryJson(text, parsedJson);
    else if (base instanceof z.ZodArray) current = text.startsWith('[') ? tryJson(text, parsedJson) : [current];
    else if (base instanceof z.ZodNumber && /^-?\d+(\.\d+)?$/.test(text)) current = Number(text);
    else if (base instanceof z.ZodBoolean && (text === 'true' || text === 'false')) current = text === 'true';
  }
  if (base instanceof z.ZodObject && current && typeof current === 'object' && !Array.isArray(current)) {
    const shape = base.shape as z.ZodRawShape;
    const result: Record<string, unknown> = { ...(current as Record<string, unknown>) };
    for (const [key, fieldSchema] of Object.entries(shape)) {
      if (key in result) result[key] = coerceToSchema(fieldSchema, result[key], parsedJson);
    }
    return result;
  }
  if (base instanceof z.ZodArray && (typeof current === 'number' || typeof current === 'boolean')) current = [current];
  if (base instanceof z.ZodArray && Array.isArray(current)) {
    return current.map((item) => coerceToSchema(base.element, item, parsedJson));
  }
  return current;
}

/** JSON text parsed, noted in `parsedJson`: what it holds is new input, as deep or hostile as any argument. */
function tryJson(text: string, parsedJson?: unknown[]): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    parsedJson?.push(parsed);
    return parsed;
  } catch {
    return text;
  }
}

/** `field.sub[2]: rule` lines, one per problem, so the caller sees every broken rule at once. */
export function formatIssues(issues: z.ZodIssue[]): string {
  const lines = issues.map((issue) => `- ${fieldPath(issue.path) || 'input'}: ${describeIssue(issue)}`);
  return [...new Set(lines)].join('\n');
}

function describeIssue(issue: z.ZodIssue): string {
  switch (issue.code) {
    case z.ZodIssueCode.invalid_type:
      return issue.received === 'undefined' ? 'is required' : `must be ${article(issue.expected)} (got ${issue.received})`;
    case z.ZodIssueCode.invalid_enum_value:
      return `must be one of ${issue.options.map((option) => JSON.stringify(option)).join(', ')}`;
    case z.ZodIssueCode.unrecognized_keys:
      return `unknown field(s) ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}`;
    case z.ZodIssueCode.invalid_union:
      return issue.message === 'Invalid input' ? 'does not match any accepted form' : issue.message;
    default:
      return issue.message;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
