import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** `npm run test:views`: the views in headless Chromium (CI installs Debian's chromium). Not part of `npm test`. */
export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
  test: {
    include: ['test/views/**/*.browser.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
