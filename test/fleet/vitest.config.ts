import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:fleet` (CI only): the *.fleet.ts suites, real processes on real time (HAProxy,
 * Redis, the rate budget against a strict upstream). They run one file at a time, so no other
 * test competes for the CPU their timing margins depend on; `npm test` never picks them up.
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/fleet/**/*.fleet.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
