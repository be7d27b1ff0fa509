import { zodToJsonSchema } from 'zod-to-json-schema';
import type { z } from 'zod';

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

export function jsonSchemaOf(schema: z.ZodTypeAny, strategy: 'input' | 'output'): JsonSchema {
  const json = zodToJsonSchema(schema, { target: 'jsonSchema7', $refStrategy: 'none', effectStrategy: strategy === 'input' ? 'input' : 'any', pipeStrategy: strategy }) as JsonSchema;
  delete json.$schema;
  return json;
}
