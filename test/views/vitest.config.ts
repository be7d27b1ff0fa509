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
    // The tests' CA, for the https host of clients' metadata documents (test/support/client-documents.ts).
    env: { NODE_EXTRA_CA_CERTS: path.join(path.dirname(fileURLToPath(import.meta.url)), '../support/tls/ca.pem') },
  },
});
