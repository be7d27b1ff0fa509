import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { Journal } from '../../src/mirror/journal.js';
import { MirrorRegistry } from '../../src/mirror/registry.js';
import type { WorkspaceMirror } from '../../src/mirror/mirror.js';
import type { Change } from '../../src/mirror/schema.js';
import { MIRROR_TABLES } from '../../tools/lib/mirror/tables.js';
import { waitFor } from '../support/harness.js';
import { childrenOf } from '../support/processes.js';

const SECRET = 'a-mirror-secret-of-at-least-32-chars!!';
const batch = (index: number): Change[] => [{ insert: 'ids_seen', rows: [['tag_group', `group-${index}`, 'sync', 1_700_000_000_000 + index]] }];

/** This process's mirror hosts, found by the operating system rather than by the registry that may have lost them. */
function hosts(): number[] {
  return childrenOf(process.pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('mirror-host');
    } catch {
      return false;
    }
  });
}

const hostPid = (mirror: WorkspaceMirror) => (mirror as unknown as { db: { child: { pid: number } } }).db.child.pid;
const openFiles = () => readdirSync('/proc/self/fd').length;

describe("a workspace's mirror host, as a stranger would stress it", () => {
  it("keeps every other key's settle working when one key's host is killed at any moment", async () => {
    const registry = new MirrorRegistry({ config: { mirror: 'memory', mirrorMaxMb: 4096, stateDir: os.tmpdir() }, tables: MIRROR_TABLES, logger: createLogger('silent') });
    try {
      const victims = await Promise.all(['svc_v1', 'svc_v2', 'svc_v3'].map((key) => registry.get(key)));
      const survivor = await registry.get('svc_survivor');
      await survivor.apply(batch(1));
      for (const victim of victims) {
        process.kill(hostPid(victim), 'SIGKILL');
        // The kill has not been seen yet: the registry still holds the victim when the other key settles.
        await expect(registry.fitMemory(survivor)).resolves.toBeUndefined();
      }
      expect(await survivor.rows('SELECT count(*) AS n FROM ids_seen')).toEqual([{ n: 1 }]);
    } finally {
      await registry.closeAll();
    }
  });

  it("ends a statement the interrupt cannot stop 1 s past its time limit, its own workspace's host only, and says why to the next question", async () => {
    const registry = new MirrorRegistry({ config: { mirror: 'memory', mirrorMaxMb: 256, stateDir: os.tmpdir() }, tables: MIRROR_TABLES, logger: createLogger('silent') });
    try {
      const endless = await registry.get('svc_endless');
      const other = await registry.get('svc_other');
      await other.apply(batch(1));
      // Small in memory (30 million elements, about 330 MB with the host), long in one uninterruptible call.
      const stopped = endless.query('SELECT list_reduce(range(30000000), (a, b) -> a + b) AS n', { maxRows: 5, timeoutMs: 100 });
      expect(await other.rows('SELECT count(*) AS n FROM ids_seen')).toEqual([{ n: 1 }]);
      await expect(stopped).rejects.toThrow(/stopped: a query_workspace statement went on 1 s past its time limit of 0.1 s/);
      const dropped = await waitFor(() => registry.droppedFor('svc_endless'), "the stopped mirror's reason");
      expect(dropped.reason).toMatch(/^stopped \(a query_workspace statement went on 1 s/);
      expect(await registry.held('svc_endless')).toBeUndefined();
      expect(await other.rows('SELECT count(*) AS n FROM ids_seen')).toEqual([{ n: 1 }]);
    } finally {
      await registry.closeAll();
    }
  });

  it('leaves no host and no open file behind when a journal on disk cannot be replayed, however often it is asked', async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-host-'));
    const key = `svc_${'c3'.repeat(16)}`;
    const journal = Journal.at(stateDir, SECRET, key);
    journal.replay();
    journal.append(batch(1));
    // Sealed with the right secret and key, so it opens: a record of a table this version no longer declares.
    journal.append([{ insert: 'a_table_since_renamed', rows: [] }]);
    journal.close();
    const registry = new MirrorRegistry({ config: { mirror: 'disk', mirrorSecret: SECRET, mirrorMaxMb: 64, stateDir }, tables: MIRROR_TABLES, logger: createLogger('silent') });
    const hostsBefore = hosts().length;
    const filesBefore = openFiles();
    for (let attempt = 0; attempt < 3; attempt++) await expect(registry.get(key)).rejects.toThrow(/no table a_table_since_renamed/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hosts().length).toBe(hostsBefore);
    expect(openFiles()).toBeLessThanOrEqual(filesBefore);
    await registry.closeAll();
  });
});
