import { z } from 'zod';

/**
 * An output record as the spec documents it: `required` holds the fields the spec guarantees,
 * `optional` the others worth typing. Undeclared fields pass (the API may add some), and
 * schemas stay shallow and small: every tools/list carries them (design sec. 9 budget).
 */
export function shape<Required extends z.ZodRawShape, Optional extends z.ZodRawShape = Record<never, never>>(required: Required, optional?: Optional) {
  return z
    .object(required)
    .merge(z.object(optional ?? ({} as Optional)).partial())
    .passthrough();
}

/** `{success: true}` of the delete and feedback routes. */
export const successShape = shape({ success: z.boolean() });
