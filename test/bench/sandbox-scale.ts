/**
 * `npm run bench:sandbox -- [N ...]`: the sandbox at scale (`--sandbox-conversations`).
 * Each N runs in a fresh process (so memory is its own), started with --expose-gc:
 *
 * - start: time of startSandbox({ conversations: N }) (seed + generation), and heap and RSS after
 *   a forced GC, against N = 0 in the same run;
 * - a page of 100: GET /v2/hc-interactions/public?limit=100 over loopback, paging with nextCursor
 *   through a 90-day window (newest 90 days, the oldest 90 days of the year, and the newest with
 *   a filter only a scan serves: csat=0, a question nothing matches), and the same
 *   pages straight from the store (no HTTP, no JSON), per page: median and p99 of a second pass
 *   (the first warms the JIT);
 * - memory of the running sandbox after that paging, after a forced GC.
 *
 * It reports; it fails on nothing.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../src/sandbox/index.js';
import { percentile } from './report.js';

const DAY = 86_400_000;
const MB = 1024 * 1024;

interface Figures {
  n: number;
  startMs: number;
  heapMB: number;
  rssMB: number;
  /** GET /v2/bots/public, the same way: the floor a page is read against */
  floorP50: number;
  pages: { window: string; count: number; httpP50: number; httpP99: number; storeP50: number; storeP99: number; items: number }[];
  runningHeapMB: number;
  runningRssMB: number;
}

/** JS heap plus array buffers (the generated columns live there), and RSS. */
function memory(): { heap: number; rss: number } {
  globalThis.gc?.();
  globalThis.gc?.();
  const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
  return { heap: (heapUsed + arrayBuffers) / MB, rss: rss / MB };
}

const ascending = (values: number[]) => [...values].sort((a, b) => a - b);

async function measure(n: number): Promise<Figures> {
  const started = performance.now();
  const sandbox = await startSandbox({ conversations: n, rateLimit: 'off' });
  const startMs = performance.now() - started;
  const afterStart = memory();
  const store = sandbox.state.workspaces.get(sandbox.seed.workspaceA)!.conversations;
  const now = Date.now();
  const newest = { since: now - 90 * DAY, until: now };
  const windows: Record<string, Record<string, string | number>> = {
    newest,
    oldest: { since: now - 365 * DAY, until: now - 275 * DAY },
    // filters the indices cannot serve: every conversation of the window is looked at
    'csat=0': { ...newest, csat: 0 },
    question: { ...newest, question: 'nothing like this' },
  };
  const pages: Figures['pages'] = [];
  const get = async (path: string, query: Record<string, string | number> = {}) => {
    const url = new URL(`${sandbox.url}${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
    const t0 = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${sandbox.keys.admin}` } });
    const body = (await response.json()) as { interactions: unknown[]; nextCursor: string | null };
    return { ms: performance.now() - t0, body };
  };
  const floor: number[] = [];
  for (let i = 0; i < 60; i++) floor.push((await get('/v2/bots/public')).ms);
  for (const [pass, [name, window]] of [...Object.entries(windows), ...Object.entries(windows)].entries()) {
    const http: number[] = [];
    const direct: number[] = [];
    let items = 0;
    let cursor: string | null = null;
    // at least 30 pages a pass: a window that fits in fewer is read again from the start
    for (let page = 0; cursor !== null || page < 30; page++) {
      const { ms, body } = await get('/v2/hc-interactions/public', { ...window, limit: 100, ...(cursor ? { cursor } : {}) });
      http.push(ms);
      const t1 = performance.now();
      store.listPage({ ...(window as { since: number; until: number }), limit: 100, direction: 'next', cursor: cursor ? store.sortKey(cursor) : undefined });
      direct.push(performance.now() - t1);
      items += body.interactions.length;
      cursor = body.nextCursor;
    }
    if (pass < Object.keys(windows).length) continue;
    const round = (value: number) => Math.round(value * 100) / 100;
    const [httpSorted, directSorted] = [ascending(http), ascending(direct)];
    pages.push({
      window: name,
      count: http.length,
      items: Math.round(items / http.length),
      httpP50: round(percentile(httpSorted, 50)),
      httpP99: round(percentile(httpSorted, 99)),
      storeP50: round(percentile(directSorted, 50)),
      storeP99: round(percentile(directSorted, 99)),
    });
  }
  const running = memory();
  await sandbox.close();
  return {
    n,
    startMs: Math.round(startMs),
    floorP50: Math.round(percentile(ascending(floor), 50) * 100) / 100,
    heapMB: round1(afterStart.heap),
    rssMB: round1(afterStart.rss),
    pages,
    runningHeapMB: round1(running.heap),
    runningRssMB: round1(running.rss),
  };
}
const round1 = (value: number) => Math.round(value * 10) / 10;

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await measure(Number(process.argv[3]))));
} else {
  const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [0, 10_000, 100_000];
  const self = fileURLToPath(import.meta.url);
  const results = sizes.map((n) => {
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, '--child', String(n)], { encoding: 'utf8', maxBuffer: 16 * MB });
    if (child.status !== 0) throw new Error(`N=${n} failed: ${child.stderr}`);
    return JSON.parse(child.stdout) as Figures;
  });
  const floor = results.find((r) => r.n === 0);
  console.log('Sandbox at scale (each N in its own process; memory after a forced GC; N=0 is the seed alone: 40 listed conversations)\n');
  console.log('N         start ms  (+ over N=0)  heap+buffers MB (+)  RSS MB  (+)     running heap / RSS MB');
  for (const r of results) {
    const plus = (value: number, base: number | undefined) => (base === undefined ? '' : `+${round1(value - base)}`);
    console.log(
      `${String(r.n).padEnd(9)} ${String(r.startMs).padStart(8)}  ${plus(r.startMs, floor?.startMs).padStart(12)}  ${String(r.heapMB).padStart(7)} ${plus(r.heapMB, floor?.heapMB).padEnd(12)}  ${String(r.rssMB).padStart(6)}  ${plus(r.rssMB, floor?.rssMB).padEnd(6)}  ${r.runningHeapMB} / ${r.runningRssMB}`,
    );
  }
  console.log('\nA page of limit=100, paged with nextCursor through a 90-day window: ms per page (median / p99);');
  console.log('floor: GET /v2/bots/public the same way (median)');
  console.log('N         window    pages  items/page  HTTP round trip   floor   store only');
  for (const r of results) {
    for (const p of r.pages) {
      console.log(
        `${String(r.n).padEnd(9)} ${p.window.padEnd(8)}  ${String(p.count).padStart(5)}  ${String(p.items).padStart(10)}  ${`${p.httpP50} / ${p.httpP99}`.padEnd(16)}  ${String(r.floorP50).padEnd(6)}  ${p.storeP50} / ${p.storeP99}`,
      );
    }
  }
}
