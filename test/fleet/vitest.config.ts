import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** `npm run test:fleet` (CI only): the *.fleet.ts suites, which need haproxy and redis-server; `npm test` never picks them up. */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/fleet/**/*.fleet.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
