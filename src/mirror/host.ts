/**
 * The process one workspace's database lives in, started by remote.ts with an IPC channel and no
 * environment: it holds no key and no secret, only the workspace's rows. It does what the channel
 * asks of its Database, one answer per request, and ends itself when its memory passes the ceiling
 * it was opened with: a value the engine builds inside one call (a nested replace, a long range)
 * escapes both the engine's memory limit and its interrupt, and would otherwise take the whole
 * server down with it. It also ends when the server does (the channel closes).
 */
import { Database, type QueryLimits, type TransactionStep, type Param } from './database.js';
import { ANSWER_MAX_BYTES, type HostOptions, type HostReply, type HostRequest } from './host-protocol.js';
import type { TableDefinition } from './schema.js';

let database: Promise<Database> | undefined;

const send = (reply: HostReply) => process.send?.(reply);

async function answer({ id, call, args }: HostRequest): Promise<void> {
  try {
    send({ id, value: await perform(call, args) });
  } catch (error) {
    send({ id, error: { name: (error as Error).name ?? 'Error', message: (error as Error).message ?? String(error) } });
  }
}

async function perform(call: HostRequest['call'], args: unknown[]): Promise<unknown> {
  if (call === 'open') {
    const [options, tables] = args as [HostOptions, TableDefinition[]];
    database = Database.open(options, tables);
    await database;
    watchMemory(options.rssCeilingMb);
    return null;
  }
  if (!database) throw new Error('internal: the mirror host was asked before it was opened');
  const db = await database;
  switch (call) {
    case 'rows':
      return db.rows(args[0] as string, args[1] as Param[]);
    case 'transaction':
      return db.transaction(args[0] as TransactionStep[]);
    case 'query':
      return boundedAnswer(await db.query(args[0] as string, args[1] as QueryLimits));
    case 'parse':
      return db.parse(args[0] as string);
    case 'compact':
      await db.compact();
      globalThis.gc?.();
      return null;
    case 'memoryBytes':
      return process.memoryUsage.rss();
  }
}

/** An answer is sent whole over the channel: one far past what any reply shows is refused here, not copied into the server. */
function boundedAnswer<T>(value: T): T {
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > ANSWER_MAX_BYTES)
    throw Object.assign(new Error(`The answer holds ${Math.round(bytes / 1024 / 1024)} MB, past the ${ANSWER_MAX_BYTES / 1024 / 1024} MB a query may return; select fewer columns or aggregate.`), {
      name: 'QueryRefused',
    });
  return value;
}

/** Every 50 ms, off the engine's threads: a statement building a huge value is stopped within a few MB of the ceiling. */
function watchMemory(ceilingMb: number): void {
  setInterval(() => {
    const mb = process.memoryUsage.rss() / 1024 / 1024;
    if (mb <= ceilingMb) return;
    send({ stopped: `its engine's process reached ${Math.round(mb)} MB, past its ceiling of ${ceilingMb} MB` });
    // The engine may be inside a call that nothing else can end: no exit handler is waited for.
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 20);
  }, 50).unref();
}

process.on('message', (message: HostRequest) => void answer(message));
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
