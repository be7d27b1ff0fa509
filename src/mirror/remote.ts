/**
 * A workspace's database in a process of its own (host.ts), seen from the server. The engine runs
 * people's SQL, and one engine call can build a value outside its memory limit and its interrupt:
 * in the server's process that could take every tenant down, in the host it takes only its own
 * workspace. The host is ended when a query runs KILL_GRACE_MS past its time limit, and ends itself
 * past its memory ceiling; either way every request it held fails with the reason, and `onLost`
 * tells the registry, which forgets the mirror (on disk, the next question replays its journal).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MirrorUnavailable, QueryRefused, type Param, type Plain, type QueryAnswer, type QueryLimits, type TransactionStep } from './database.js';
import type { HostOptions, HostReply, HostRequest } from './host-protocol.js';
import type { TableDefinition } from './schema.js';

/** How long past its time limit a query may go on (the engine's interrupt stops most within milliseconds) before its host is ended. */
const KILL_GRACE_MS = 1000;

/**
 * Resident memory a host may hold beyond the engine's own limit: Node and the engine's library
 * (about 90 MB at rest), a sync's batch in flight, and the engine's memory outside its buffers.
 */
const HOST_HEADROOM_MB = 384;

export interface RemoteOptions {
  memoryLimitMb: number;
  threads: number;
  /** The host ended without being closed: the reason, for the question that finds the mirror gone. */
  onLost(reason: string): void;
  /** A line the host wrote to stderr (the engine's own messages; never a key, which it never holds). */
  onStderr(line: string): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** A people's query: its failure on a lost host is a refusal that says why. */
  query: boolean;
}

export class RemoteDatabase {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** Set once, when the host is closed by the server or lost past a limit: every request after fails with it. */
  private over?: { lost: boolean; reason: string };

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: RemoteOptions,
  ) {
    child.on('message', (reply: HostReply) => this.receive(reply));
    child.on('exit', (code, signal) => this.ended(code, signal));
    child.on('error', (error) => this.lose(`its engine's process failed: ${error.message}`));
    if (child.stderr) createInterface({ input: child.stderr }).on('line', (line) => line.trim() && options.onStderr(line.slice(0, 1000)));
  }

  static async open(options: RemoteOptions, tables: readonly TableDefinition[]): Promise<RemoteDatabase> {
    // A small young generation and a collection after each compaction: the host's own objects are
    // batches in passing, and what V8 would keep of them for speed is memory SVC_MIRROR_MAX_MB counts.
    const child = fork(await hostEntry(), [], { env: {}, execArgv: ['--expose-gc', '--max-semi-space-size=2'], serialization: 'json', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const database = new RemoteDatabase(child, options);
    const hostOptions: HostOptions = { memoryLimitMb: options.memoryLimitMb, threads: options.threads, rssCeilingMb: options.memoryLimitMb + HOST_HEADROOM_MB };
    try {
      await database.request('open', [hostOptions, tables]);
    } catch (error) {
      database.close();
      throw error;
    }
    return database;
  }

  rows(sql: string, values: Param[] = []): Promise<Array<Record<string, Plain>>> {
    return this.request('rows', [sql, values]) as Promise<Array<Record<string, Plain>>>;
  }

  async transaction(steps: readonly TransactionStep[]): Promise<void> {
    await this.request('transaction', [steps]);
  }

  async query(sql: string, limits: QueryLimits): Promise<QueryAnswer> {
    const timer = setTimeout(() => this.lose(`a query_workspace statement went on ${KILL_GRACE_MS / 1000} s past its time limit of ${limits.timeoutMs / 1000} s`), limits.timeoutMs + KILL_GRACE_MS);
    try {
      return (await this.request('query', [sql, limits], true)) as QueryAnswer;
    } finally {
      clearTimeout(timer);
    }
  }

  parse(sql: string): Promise<unknown> {
    return this.request('parse', [sql]);
  }

  async compact(): Promise<void> {
    await this.request('compact', []);
  }

  /** The host's resident memory: Node, the engine and the workspace's rows, what SVC_MIRROR_MAX_MB counts. */
  async memoryBytes(): Promise<number> {
    return (await this.request('memoryBytes', [])) as number;
  }

  close(): void {
    this.end({ lost: false, reason: 'the workspace mirror was closed' });
  }

  private request(call: HostRequest['call'], args: unknown[], query = false): Promise<unknown> {
    if (this.over) return Promise.reject(this.failure(query));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, query });
      this.child.send({ id, call, args } satisfies HostRequest);
    });
  }

  private receive(reply: HostReply): void {
    if ('stopped' in reply) {
      this.lose(reply.stopped);
      return;
    }
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if ('error' in reply) pending.reject(rebuiltError(reply.error));
    else pending.resolve(reply.value);
  }

  private ended(code: number | null, signal: NodeJS.Signals | null): void {
    this.lose(`its engine's process ended (${signal ?? `exit code ${code}`})`);
  }

  /** The host went past a limit or died: ended, every request failed with why, and the registry told, once (never after a close). */
  private lose(reason: string): void {
    if (this.end({ lost: true, reason })) this.options.onLost(reason);
  }

  /** Ends the host and fails what it held; false when it had already ended. */
  private end(over: NonNullable<RemoteDatabase['over']>): boolean {
    if (this.over) return false;
    this.over = over;
    this.child.kill('SIGKILL');
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(this.failure(pending.query));
    }
    return true;
  }

  private failure(query: boolean): Error {
    const { lost, reason } = this.over!;
    if (!lost) return new Error(reason);
    const what = `The workspace mirror was stopped: ${reason}.`;
    return query
      ? new QueryRefused(
          `${what} Only this workspace's mirror was affected; narrow the statement (no list or text built as large as an argument asks). On disk, the next question reopens the mirror from its file; in memory, sync_workspace reads it again.`,
        )
      : new Error(`${what} Ask again: the mirror reopens (on disk, from its file; in memory, empty until sync_workspace).`);
  }
}

function rebuiltError({ name, message }: { name: string; message: string }): Error {
  if (name === 'QueryRefused') return new QueryRefused(message);
  if (name === 'MirrorUnavailable') return new MirrorUnavailable(message);
  return new Error(message);
}

let fromSources: Promise<string> | undefined;

/** The host's file: dist/mirror-host.js beside the bundle's entry (this code may be in a chunk below it), or built once from the sources. */
async function hostEntry(): Promise<string> {
  if (import.meta.url.endsWith('.ts')) {
    // A computed specifier: the server bundle must not pull in the build (and esbuild) with it.
    fromSources ??= import(new URL('./host-build.ts', import.meta.url).href).then((module: { buildHost(): Promise<string> }) => module.buildHost());
    return fromSources;
  }
  const here = path.dirname(fileURLToPath(import.meta.url));
  const entry = [here, path.dirname(here)].map((dir) => path.join(dir, 'mirror-host.js')).find((file) => existsSync(file));
  if (!entry) throw new MirrorUnavailable(`the mirror's host (mirror-host.js) is missing beside ${here}`);
  return entry;
}
