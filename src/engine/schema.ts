import { ignoreOverride, zodToJsonSchema } from 'zod-to-json-schema';
import type { z } from 'zod';
import { LISTED_AS_TEXT } from './inputs.js';
import type { ToolDefinition } from './define.js';

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

export function jsonSchemaOf(schema: z.ZodTypeAny, strategy: 'input' | 'output'): JsonSchema {
  const json = zodToJsonSchema(schema, {
    target: 'jsonSchema7',
    $refStrategy: 'none',
    effectStrategy: strategy === 'input' ? 'input' : 'any',
    pipeStrategy: strategy,
    // A fresh object each time: the converter adds the description to what this returns.
    override: (def) => (LISTED_AS_TEXT.has(def) ? { type: 'string' } : ignoreOverride),
  }) as JsonSchema;
  delete json.$schema;
  return portable(json);
}

/** Keywords that only describe: a schema made of these alone accepts any value. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);
/** Keywords that apply to one JSON type only, which go with that type's branch when a list of types is split. */
const KEYWORDS_OF_TYPE: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'propertyNames'],
};

const isSchemaObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);
const constrainsNothing = (value: unknown) => value === true || (isSchemaObject(value) && Object.keys(value).every((key) => ANNOTATIONS.has(key)));

/**
 * JSON Schema every client reads alike, as the MCP Inspector's portability check asks: one `type`
 * per schema (a list of types becomes `anyOf`, one type and its own keywords per branch), and no
 * schema that constrains nothing where a client may refuse one: under `items` it is left out (an
 * array of any values), under `additionalProperties` it becomes `true`, and as a property of an
 * object open to other properties it is left out of `properties` (a required one stays required).
 * Each rewrite accepts exactly what the original did.
 */
function portable(schema: JsonSchema): JsonSchema {
  const node: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isSchemaObject(value)) {
      const open = schema.additionalProperties !== false;
      node.properties = Object.fromEntries(Object.entries(value).flatMap(([name, sub]) => (open && constrainsNothing(sub) ? [] : [[name, isSchemaObject(sub) ? portable(sub) : sub]])));
    } else if (key === 'items' && constrainsNothing(value)) {
      // An array of any values: no `items` says so.
    } else if (key === 'additionalProperties' && isSchemaObject(value)) {
      node.additionalProperties = constrainsNothing(value) ? true : portable(value);
    } else if ((key === 'items' || key === 'not') && isSchemaObject(value)) {
      node[key] = portable(value);
    } else if ((key === 'anyOf' || key === 'allOf' || key === 'oneOf') && Array.isArray(value)) {
      node[key] = value.map((sub) => (isSchemaObject(sub) ? portable(sub) : sub));
    } else {
      node[key] = value;
    }
  }
  return Array.isArray(node.type) ? oneTypePerBranch(node) : node;
}

function oneTypePerBranch(node: JsonSchema): JsonSchema {
  const { type, ...rest } = node as JsonSchema & { type: string[] };
  if (rest.anyOf) throw new Error(`internal: a schema with both a list of types and anyOf: ${JSON.stringify(node)}`);
  const branches = type.map((single) => {
    const branch: JsonSchema = { type: single };
    for (const keyword of KEYWORDS_OF_TYPE[single] ?? []) if (keyword in rest) branch[keyword] = rest[keyword];
    return branch;
  });
  for (const keyword of new Set(type.flatMap((single) => KEYWORDS_OF_TYPE[single] ?? []))) delete rest[keyword];
  return { ...rest, anyOf: branches };
}

/** A tool's input and output schemas as JSON Schema. */
export interface ToolSchemas {
  input: JsonSchema;
  output?: JsonSchema;
}

export function toolSchemasOf(tool: ToolDefinition): ToolSchemas {
  return { input: jsonSchemaOf(tool.input, 'input'), ...(tool.output ? { output: jsonSchemaOf(tool.output, 'output') } : {}) };
}

/**
 * The catalog's schemas as the bundle carries them: `npm run build` converts every tool's once
 * (test/release/build.ts) and defines PREBUILT_TOOL_SCHEMAS as their JSON, by tool name. Converting
 * them at start took about 15 ms of every cold start to the first tools/list, for a result that
 * only a change of the catalog can change. Sources run as they are (tsx, tests) convert as they go.
 */
declare const PREBUILT_TOOL_SCHEMAS: string;
let prebuilt: Record<string, ToolSchemas> | undefined;

export function toolSchemas(tool: ToolDefinition): ToolSchemas {
  if (typeof PREBUILT_TOOL_SCHEMAS === 'string') prebuilt ??= JSON.parse(PREBUILT_TOOL_SCHEMAS) as Record<string, ToolSchemas>;
  return prebuilt?.[tool.name] ?? toolSchemasOf(tool);
}
