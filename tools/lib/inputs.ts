import { z } from 'zod';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** Non-blank text: blank strings count as empty. */
export function nonBlank(description?: string) {
  const text = z.string().refine((value) => value.trim().length > 0, 'must not be empty or blank');
  return description ? text.describe(description) : text;
}

export const channelEnum = z.enum(['chat', 'email']);

/** Source values of conversations: the documented ones plus lowercase names of connected platforms. */
export const conversationSource = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'must be a lowercase source name such as api, widget, ui, standalone, testsuite, replay or a connected platform');

/** The characters of text that are not blank, counted as code points: an emoji is one character, not two UTF-16 units. */
export function nonBlankLength(text: string): number {
  let count = 0;
  for (const char of text) if (!/\s/.test(char)) count++;
  return count;
}

/**
 * Text filters of list conversations: at most 100 non-blank characters, no `%`, `_` or control
 * characters (C0, DEL and C1). The spec sets no minimum: blank text is sent as given.
 */
export function searchText(description: string) {
  return (
    z
      .string()
      // The spec counts non-blank characters: spaces between words do not count against the 100.
      .refine((text) => nonBlankLength(text) <= 100, 'must be at most 100 characters, not counting blanks')
      .refine((text) => !/[%_]/.test(text), 'must not contain % or _')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rule refuses
      .refine((text) => !/[\u0000-\u001f\u007f-\u009f]/.test(text), 'must not contain control characters')
      .describe(description)
  );
}

/** The description marker of a tool whose payload the spec does not show; the guide says what it means. */
export const PASS_THROUGH = 'Extra fields pass through.';
