import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:pack` (CI only): rebuilds dist/ and packs the MCP
 * Bundle, so it stays out of `npm test`, which never touches dist/. Its files end in .pack.ts so
 * that no other run picks them up.
 */
export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
  test: {
    include: ['test/pack/**/*.pack.ts'],
    testTimeout: 180_000,
  },
});
