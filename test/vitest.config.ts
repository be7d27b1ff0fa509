import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm test`. Most end-to-end tests wait on the sandbox's clocks and the server's poll intervals
 * rather than on the CPU, so more test files run at once than the machine has cores. The bundle
 * test (test/pack, `npm run test:pack`) is CI-only: its files are not named *.test.ts.
 */
export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
  test: {
    include: ['test/**/*.test.ts'],
    maxWorkers: 4,
    // Every file builds its own sandbox and runtime and restores what it changes, so files share
    // one module cache per worker: importing the SDK and the catalog once per worker, not per file,
    // halves the run.
    isolate: false,
    // Timing is asserted where it matters; a CPU-bound test on a busy machine should not fail for it.
    testTimeout: 20_000,
    // Servers that tests start from process.env keep their state in a temporary folder, never the user's home.
    // The tests' own CA signs the https host of clients' metadata documents (test/support/client-documents.ts):
    // a worker reads it only at its start, as Node reads NODE_EXTRA_CA_CERTS.
    env: { SVC_STATE_DIR: path.join(os.tmpdir(), 'svc-mcp-test-state'), NODE_EXTRA_CA_CERTS: path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/tls/ca.pem') },
    // `npm run coverage`: the server's own code as the in-process tests run it, summed per folder
    // by test/release/coverage-by-folder.ts.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'tools/**/*.ts'],
      // The views' browser code runs in Chromium (npm run test:views), not in process.
      exclude: ['src/views/*/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
