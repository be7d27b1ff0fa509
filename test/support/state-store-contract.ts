/**
 * What every `StateStore` (src/state/store.ts) promises, as one suite that each store runs: the
 * memory and file stores in test/unit/state-store.test.ts, the Redis store in
 * test/fleet/redis-state.test.ts. A store is opened as several handles on one state (the same
 * object twice in memory, two stores on one folder, four Redis connections), as the processes of
 * one host or the nodes of a fleet hold it, and every promise is checked across the handles.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/state/store.js';

export interface OpenedStores {
  /** Handles on one state; at least two. */
  stores: StateStore[];
  /** The clock the stores read. */
  now(): number;
  /** Lets `ms` pass on that clock: a test clock moves, a real one is waited for. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** How long a record lives in these tests: short, since a store on real time (Redis) is waited for. */
const TTL_MS = 100;
/** The life of a record that must still be live when checked: a store on real time must not let it expire between two lines. */
const LIVE_MS = 60_000;

/** The suite, as a describe block named after the store. */
export function describeStateStore(name: string, open: () => Promise<OpenedStores>): void {
  describe(`state store contract: ${name}`, () => {
    let opened: OpenedStores | undefined;
    const start = async () => (opened = await open());
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });
    /** The handle for the `index`th of several callers, taking turns. */
    const handle = (stores: StateStore[], index: number) => stores[index % stores.length];

    it('names itself with 12 hex digits, the same on every handle of one state (a confirmation token carries it)', async () => {
      const { stores } = await start();
      expect(new Set(stores.map((store) => store.id)).size).toBe(1);
      expect(stores[0].id).toMatch(/^[0-9a-f]{12}$/);
    });

    it('lets exactly one of many concurrent claims of an id win, until it expires', async () => {
      const { stores, now, advance } = await start();
      const [first, second] = stores;
      const claims = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 ? first : second).claim('spent', 'mac-1', now() + LIVE_MS)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await first.claim('spent', 'mac-2', now() + TTL_MS)).toBe(true);
      await advance(TTL_MS + 1);
      expect(await first.claim('spent', 'mac-1', now() + LIVE_MS)).toBe(false);
      expect(await second.claim('spent', 'mac-2', now() + LIVE_MS)).toBe(true);
      expect(await first.claim('spent', 'mac-2', now() + LIVE_MS)).toBe(false);
    });

    it('of many handles claiming one id at once, exactly one wins, round after round', async () => {
      const { stores, now } = await start();
      for (let round = 0; round < 20; round++) {
        const claims = await Promise.all(Array.from({ length: 12 }, (_, index) => handle(stores, index).claim('spent', `race-${round}`, now() + LIVE_MS)));
        expect(claims.filter(Boolean)).toHaveLength(1);
      }
    });

    it('gives a taken value to exactly one caller, and expired values to none', async () => {
      const { stores, now, advance } = await start();
      const [first, second] = stores;
      await first.put('oauth-code', 'code-1', '{"grant":1}', now() + LIVE_MS);
      expect(await second.get('oauth-code', 'code-1')).toBe('{"grant":1}');
      const taken = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? first : second).take('oauth-code', 'code-1')));
      expect(taken.filter((value) => value !== undefined)).toEqual(['{"grant":1}']);
      await first.put('oauth-code', 'code-2', 'x', now() + TTL_MS);
      await advance(TTL_MS);
      expect(await second.get('oauth-code', 'code-2')).toBeUndefined();
      expect(await second.take('oauth-code', 'code-2')).toBeUndefined();
    });

    it('of many handles taking one value at once, exactly one gets it, round after round', async () => {
      const { stores, now } = await start();
      for (let round = 0; round < 20; round++) {
        await stores[0].put('grant', `code-${round}`, `value-${round}`, now() + LIVE_MS);
        const taken = await Promise.all(Array.from({ length: 12 }, (_, index) => handle(stores, index).take('grant', `code-${round}`)));
        expect(taken.filter((value) => value !== undefined)).toEqual([`value-${round}`]);
      }
      expect(await stores[1].get('grant', 'code-0')).toBeUndefined();
    });

    it('replaces on put and forgets on delete', async () => {
      const { stores, now } = await start();
      const [first, second] = stores;
      await first.put('grant', 'g', 'one', now() + LIVE_MS);
      await second.put('grant', 'g', 'two', now() + LIVE_MS);
      expect(await first.get('grant', 'g')).toBe('two');
      await second.delete('grant', 'g');
      await second.delete('grant', 'never-stored');
      expect(await first.get('grant', 'g')).toBeUndefined();
    });

    it('answers any sequence of operations on any ids as a map of live records would, whichever handle is asked', async () => {
      const { stores, now } = await start();
      // Ids as a caller may hand them over, never read as paths or keys: only their digest is stored.
      const ids = fc.oneof(fc.constantFrom('a', 'A', '../a', 'a\0', '*', ''), fc.string({ maxLength: 80, unit: 'grapheme' }));
      const operation = fc.record({
        kind: fc.constantFrom('claim', 'put', 'get', 'take', 'delete'),
        space: fc.constantFrom('spent', 'grant'),
        id: ids,
        value: fc.string({ maxLength: 40, unit: 'grapheme' }),
        caller: fc.nat(),
      });
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(operation, { maxLength: 20 }), async (operations) => {
          // Each run in spaces of its own, so runs share nothing but the store.
          const prefix = `run${run++}-`;
          const model = new Map<string, string>();
          for (const { kind, space, id, value, caller } of operations) {
            const store = handle(stores, caller);
            const key = JSON.stringify([space, id]);
            const spaceName = `${prefix}${space}`;
            if (kind === 'claim') {
              expect(await store.claim(spaceName, id, now() + LIVE_MS)).toBe(!model.has(key));
              if (!model.has(key)) model.set(key, '');
            } else if (kind === 'put') {
              await store.put(spaceName, id, value, now() + LIVE_MS);
              model.set(key, value);
            } else if (kind === 'get') {
              expect(await store.get(spaceName, id)).toBe(model.get(key));
            } else if (kind === 'take') {
              expect(await store.take(spaceName, id)).toBe(model.get(key));
              model.delete(key);
            } else {
              await store.delete(spaceName, id);
              model.delete(key);
            }
          }
        }),
        { numRuns: 25 },
      );
    });
  });
}
