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

const RELATIVE_UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

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

/** A time input: shows as number-or-string in the schema and arrives in handlers as epoch ms. */
export function timeInput(description: string) {
  return z
    .union([z.number(), z.string()])
    .transform((value, context) => {
      const parsed = parseTime(value);
      if (parsed === undefined) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: 'must be epoch milliseconds, an ISO 8601 time, or a relative age such as 7d, 24h or 30m' });
        return z.NEVER;
      }
      return parsed;
    })
    .describe(`${description} Epoch ms, ISO 8601, or relative (7d, 24h).`);
}

/** A required id: non-empty after trimming. */
export function idInput(description: string) {
  return z.string().trim().min(1, 'must not be empty').describe(description);
}

/** A list of ids (or other non-empty items), each non-empty after trimming. */
export function idList(description: string) {
  return z.array(z.string().trim().min(1, 'must not be empty')).describe(description);
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

export function acceptsUnknownKeys(schema: z.ZodTypeAny): boolean {
  const base = baseSchema(schema);
  return base instanceof z.ZodObject && base._def.unknownKeys === 'passthrough';
}

/**
 * Clients sometimes send objects and arrays as JSON text, a single value where a list is
 * expected, and numbers or booleans as strings.
 * Those are converted where the schema wants the parsed type; anything else is left for the
 * validator to report.
 */
export function coerceToSchema(schema: z.ZodTypeAny, value: unknown): unknown {
  const base = baseSchema(schema);
  if (base instanceof z.ZodUnion) {
    const options = base.options as z.ZodTypeAny[];
    if (options.some((option) => option.safeParse(value).success)) return value;
    return options.reduce((current, option) => (current === value ? coerceToSchema(option, value) : current), value);
  }
  let current = value;
  if (typeof current === 'string') {
    const text = current.trim();
    if ((base instanceof z.ZodObject || base instanceof z.ZodRecord) && text.startsWith('{')) current = tryJson(text);
    else if (base instanceof z.ZodArray) current = text.startsWith('[') ? tryJson(text) : [current];
    else if (base instanceof z.ZodNumber && /^-?\d+(\.\d+)?$/.test(text)) current = Number(text);
    else if (base instanceof z.ZodBoolean && (text === 'true' || text === 'false')) current = text === 'true';
  }
  if (base instanceof z.ZodObject && current && typeof current === 'object' && !Array.isArray(current)) {
    const shape = base.shape as z.ZodRawShape;
    const result: Record<string, unknown> = { ...(current as Record<string, unknown>) };
    for (const [key, fieldSchema] of Object.entries(shape)) {
      if (key in result) result[key] = coerceToSchema(fieldSchema, result[key]);
    }
    return result;
  }
  if (base instanceof z.ZodArray && (typeof current === 'number' || typeof current === 'boolean')) current = [current];
  if (base instanceof z.ZodArray && Array.isArray(current)) {
    return current.map((item) => coerceToSchema(base.element, item));
  }
  return current;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `field.sub[2]: rule` lines, one per problem, so the caller sees every broken rule at once. */
export function formatIssues(issues: z.ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const field = issue.path.reduce<string>(
      (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : String(part)),
      '',
    );
    return `- ${field || 'input'}: ${describeIssue(issue)}`;
  });
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
