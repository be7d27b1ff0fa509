import { z } from 'zod';
import { VIEWS } from './render/shape-options.js';

/**
 * The options the engine reads beside a tool's own input, which the tool never sees: `view` of a
 * list result and `confirm` of a write. Calls are checked against `ENGINE_OPTIONS`; tools/list shows
 * `LISTED_ENGINE_OPTIONS`, shorter, since every word of a listing costs every turn: `view` on list
 * tools, and `confirm` only where a write needs a token, as that token.
 */
export const ENGINE_OPTIONS = z.object({
  view: z.enum(VIEWS).optional(),
  /** A confirmToken from a preview sends, as given: it is not trimmed or otherwise changed; `true` is accepted but only previews. */
  confirm: z.union([z.boolean(), z.string().min(1, 'must be the confirmToken of a preview')]).optional(),
});

export const ENGINE_FIELDS = Object.keys(ENGINE_OPTIONS.shape);

export const LISTED_ENGINE_OPTIONS = {
  view: { type: 'string', enum: [...VIEWS] },
  confirm: { type: 'string', description: 'confirmToken from the preview' },
} satisfies Record<keyof typeof ENGINE_OPTIONS.shape, object>;
