import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../src/state/file-store.js';
import { MemoryStateStore, storedId, type StateStore } from '../../src/state/store.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempDir(): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'svc-state-'));
  folders.push(folder);
  return path.join(folder, 'state');
}

const backends: Array<[string, (now: () => number) => Promise<StateStore[]>]> = [
  [
    'memory',
    async (now) => {
      const store = new MemoryStateStore(now);
      return [store, store];
    },
  ],
  [
    'files (two processes sharing one folder)',
    async (now) => {
      const dir = tempDir();
      return [await FileStateStore.open(dir, now), await FileStateStore.open(dir, now)];
    },
  ],
];

describe.each(backends)('state store: %s', (_name, open) => {
  it('lets exactly one of many concurrent claims of an id win, until it expires', async () => {
    let now = 1_000_000;
    const [first, second] = await open(() => now);
    const claims = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 ? first : second).claim('spent', 'mac-1', now + 1000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await first.claim('spent', 'mac-2', now + 1000)).toBe(true);
    now += 1001;
    expect(await second.claim('spent', 'mac-1', now + 1000)).toBe(true);
    expect(await first.claim('spent', 'mac-1', now + 1000)).toBe(false);
  });

  it('gives a taken value to exactly one caller, and expired values to none', async () => {
    let now = 5_000;
    const [first, second] = await open(() => now);
    await first.put('oauth-code', 'code-1', '{"grant":1}', now + 100);
    expect(await second.get('oauth-code', 'code-1')).toBe('{"grant":1}');
    const taken = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? first : second).take('oauth-code', 'code-1')));
    expect(taken.filter((value) => value !== undefined)).toEqual(['{"grant":1}']);
    await first.put('oauth-code', 'code-2', 'x', now + 100);
    now += 100;
    expect(await second.get('oauth-code', 'code-2')).toBeUndefined();
    expect(await second.take('oauth-code', 'code-2')).toBeUndefined();
  });

  it('replaces on put and forgets on delete', async () => {
    const [first, second] = await open(() => 0);
    await first.put('grant', 'g', 'one', 10);
    await second.put('grant', 'g', 'two', 10);
    expect(await first.get('grant', 'g')).toBe('two');
    await second.delete('grant', 'g');
    await second.delete('grant', 'never-stored');
    expect(await first.get('grant', 'g')).toBeUndefined();
  });
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
