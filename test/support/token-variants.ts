import fc from 'fast-check';

/**
 * Ways an attacker re-encodes a confirmToken (`<expiry base36>.<nonce base64url>.<mac base64url>`)
 * hoping the server reads it as the same token but records it as a new one. A recipe is data, so
 * fast-check shows a failing one plainly; `applyVariant` turns it into text for a given token.
 */
export type VariantRecipe =
  | { kind: 'leading-zeros'; zeros: number }
  | { kind: 'case'; part: number; position: number }
  | { kind: 'same-bytes'; part: 1 | 2; flip: number }
  | { kind: 'other-alphabet' }
  | { kind: 'padding'; part: 1 | 2; pads: number }
  | { kind: 'whitespace'; where: 'before' | 'after' | 'inside'; space: string; position: number }
  | { kind: 'lookalike'; position: number }
  | { kind: 'percent'; position: number; upper: boolean };

const SPACES = [' ', '\t', '\n', '\r\n', '\u00a0', '\u200b', '\ufeff', '\u2028'];
const LOOKALIKES: Record<string, string[]> = {
  '.': ['\uff0e', '\u3002', '\u2024'],
  '0': ['\uff10', 'O'],
  '1': ['\uff11', 'l'],
  a: ['\u0430', '\uff41'],
  c: ['\u0441'],
  e: ['\u0435'],
  o: ['\u043e'],
  p: ['\u0440'],
  x: ['\u0445'],
  '-': ['\u2010', '\u2011', '\u2212'],
  _: ['\uff3f'],
};

export const variantRecipe: fc.Arbitrary<VariantRecipe> = fc.oneof(
  fc.record({ kind: fc.constant('leading-zeros' as const), zeros: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant('case' as const), part: fc.integer({ min: 0, max: 2 }), position: fc.nat() }),
  fc.record({ kind: fc.constant('same-bytes' as const), part: fc.constantFrom(1 as const, 2 as const), flip: fc.integer({ min: 1, max: 3 }) }),
  fc.constant({ kind: 'other-alphabet' as const }),
  fc.record({ kind: fc.constant('padding' as const), part: fc.constantFrom(1 as const, 2 as const), pads: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ kind: fc.constant('whitespace' as const), where: fc.constantFrom('before' as const, 'after' as const, 'inside' as const), space: fc.constantFrom(...SPACES), position: fc.nat() }),
  fc.record({ kind: fc.constant('lookalike' as const), position: fc.nat() }),
  fc.record({ kind: fc.constant('percent' as const), position: fc.nat(), upper: fc.boolean() }),
);

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The token re-encoded as the recipe says; it may come out equal to the token only where no such re-encoding exists. */
export function applyVariant(recipe: VariantRecipe, token: string): string {
  const parts = token.split('.');
  const at = (text: string, position: number) => position % text.length;
  switch (recipe.kind) {
    case 'leading-zeros':
      return ['0'.repeat(recipe.zeros) + parts[0], parts[1], parts[2]].join('.');
    case 'case': {
      const part = parts[recipe.part];
      const letters = [...part].map((char, index) => (/[a-z]/i.test(char) ? index : -1)).filter((index) => index >= 0);
      if (!letters.length) return token.toUpperCase();
      const index = letters[recipe.position % letters.length];
      const char = part[index];
      parts[recipe.part] = part.slice(0, index) + (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()) + part.slice(index + 1);
      return parts.join('.');
    }
    case 'same-bytes': {
      // The last character of 11 (nonce) or 43 (MAC) base64url characters carries two bits no byte uses.
      const part = parts[recipe.part];
      const value = BASE64URL.indexOf(part.at(-1)!);
      parts[recipe.part] = part.slice(0, -1) + BASE64URL[value ^ recipe.flip];
      return parts.join('.');
    }
    case 'other-alphabet': {
      const swapped = token.replace(/-/g, '+').replace(/_/g, '/');
      return swapped === token ? `${token}=` : swapped;
    }
    case 'padding':
      parts[recipe.part] += '='.repeat(recipe.pads);
      return parts.join('.');
    case 'whitespace': {
      if (recipe.where === 'before') return recipe.space + token;
      if (recipe.where === 'after') return token + recipe.space;
      const index = at(token, recipe.position);
      return token.slice(0, index) + recipe.space + token.slice(index);
    }
    case 'lookalike': {
      const candidates = [...token].map((char, index) => (LOOKALIKES[char] ? index : -1)).filter((index) => index >= 0);
      const index = candidates[recipe.position % candidates.length];
      const options = LOOKALIKES[token[index]];
      return token.slice(0, index) + options[recipe.position % options.length] + token.slice(index + 1);
    }
    case 'percent': {
      const index = at(token, recipe.position);
      const hex = token.charCodeAt(index).toString(16).padStart(2, '0');
      return `${token.slice(0, index)}%${recipe.upper ? hex.toUpperCase() : hex}${token.slice(index + 1)}`;
    }
  }
}
