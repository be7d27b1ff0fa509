import { zodToJsonSchema } from 'zod-to-json-schema';
import type { z } from 'zod';
import type { ToolDefinition } from './define.js';

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

export function jsonSchemaOf(schema: z.ZodTypeAny, strategy: 'input' | 'output'): JsonSchema {
  const json = zodToJsonSchema(schema, { target: 'jsonSchema7', $refStrategy: 'none', effectStrategy: strategy === 'input' ? 'input' : 'any', pipeStrategy: strategy }) as JsonSchema;
  delete json.$schema;
  return json;
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
 * (test/support/build.ts) and defines PREBUILT_TOOL_SCHEMAS as their JSON, by tool name. Converting
 * them at start took about 15 ms of every cold start to the first tools/list, for a result that
 * only a change of the catalog can change. Sources run as they are (tsx, tests) convert as they go.
 */
declare const PREBUILT_TOOL_SCHEMAS: string;
let prebuilt: Record<string, ToolSchemas> | undefined;

export function toolSchemas(tool: ToolDefinition): ToolSchemas {
  if (typeof PREBUILT_TOOL_SCHEMAS === 'string') prebuilt ??= JSON.parse(PREBUILT_TOOL_SCHEMAS) as Record<string, ToolSchemas>;
  return prebuilt?.[tool.name] ?? toolSchemasOf(tool);
}
