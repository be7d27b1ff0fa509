import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../src/state/file-store.js';
import { MemoryStateStore, storedId } from '../../src/state/store.js';
import { describeStateStore } from '../support/state-store-contract.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempDir(): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'svc-state-'));
  folders.push(folder);
  return path.join(folder, 'state');
}

function testClock() {
  let now = 1_000_000;
  return {
    now: () => now,
    advance: async (ms: number) => {
      now += ms;
    },
  };
}

describeStateStore('memory', async () => {
  const clock = testClock();
  const store = new MemoryStateStore(clock.now);
  return { ...clock, stores: [store, store], close: async () => store.close() };
});

describeStateStore('files (two processes sharing one folder)', async () => {
  const clock = testClock();
  const dir = tempDir();
  const stores = [await FileStateStore.open(dir, clock.now), await FileStateStore.open(dir, clock.now)];
  return {
    ...clock,
    stores,
    close: async () => {
      for (const store of stores) store.close();
    },
  };
});

describe('state store: files', () => {
  it('keeps claims across a restart, stores ids only as digests, and keeps files private', async () => {
    const dir = tempDir();
    const before = await FileStateStore.open(dir);
    expect(await before.claim('spent', 'a-secret-token', Date.now() + 60_000)).toBe(true);
    await before.put('grant', 'another-secret', 'v', Date.now() + 60_000);
    before.close();
    const after = await FileStateStore.open(dir);
    expect(await after.claim('spent', 'a-secret-token', Date.now() + 60_000)).toBe(false);
    const names = readdirSync(path.join(dir, 'spent'));
    expect(names).toEqual([storedId('a-secret-token')]);
    // The store's id is the one file that is not a record: the same after the restart.
    expect(after.id).toBe(before.id);
    expect(readFileSync(path.join(dir, 'store-id'), 'utf8')).toBe(after.id);
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name !== 'store-id' && statSync(path.join(dir, name)).isFile());
    const onDisk = files.map((name) => `${name}\n${readFileSync(path.join(dir, name), 'utf8')}`).join('\n');
    expect(files).toHaveLength(2);
    expect(onDisk).not.toContain('secret');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, 'spent', names[0])).mode & 0o777).toBe(0o600);
    after.close();
  });

  it('gives every process opening one folder the same store id at once, and another folder another (issue 32)', async () => {
    const dir = tempDir();
    const stores = await Promise.all(Array.from({ length: 12 }, () => FileStateStore.open(dir)));
    expect(new Set(stores.map((store) => store.id)).size).toBe(1);
    expect(stores[0].id).toMatch(/^[0-9a-f]{12}$/);
    const other = await FileStateStore.open(tempDir());
    expect(other.id).not.toBe(stores[0].id);
    for (const store of [...stores, other]) store.close();
  });

  it('refuses to open a folder it cannot write, with the reason', async () => {
    const file = path.join(path.dirname(tempDir()), 'plain-file');
    rmSync(file, { force: true });
    writeFileSync(file, '');
    await expect(FileStateStore.open(file)).rejects.toThrow(/EEXIST|ENOTDIR/);
  });
});
