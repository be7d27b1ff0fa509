import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:guarantees` (CI only): the attacks on each promise of design §10, against the
 * shipped binary, dist/svc-mcp.js, as `npm run build` made it (these suites build nothing). Files
 * are named *.guarantee.ts so `npm test` never picks them up; their fast in-process half is
 * test/hardening/promises.test.ts.
 */
export default defineConfig({
  test: {
    root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
    include: ['test/guarantees/**/*.guarantee.ts'],
    globalSetup: ['test/guarantees/global-setup.ts'],
    // Every file spawns its own processes on free ports; two at a time keep the wall time down
    // without starving the processes whose answers the tests wait for.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { SVC_MCP_TEST_SHIPPED: '1', SVC_STATE_DIR: path.join(os.tmpdir(), 'svc-mcp-guarantees-state') },
  },
});
