import { createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { Journal, journalName } from './journal.js';
import { WorkspaceMirror } from './mirror.js';
import type { TableDefinition } from './schema.js';

/** Threads each workspace's engine may use: enough for a year's grouping in milliseconds, never the whole machine. */
const THREADS = 2;

/** Why a workspace's mirror is no longer held, for the question that finds it gone. */
export interface Dropped {
  at: number;
  reason: string;
}

export interface MirrorRegistryOptions {
  config: Pick<Config, 'mirror' | 'mirrorSecret' | 'mirrorMaxMb' | 'stateDir'>;
  tables: readonly TableDefinition[];
  logger: Logger;
}

/**
 * Every workspace's mirror in this process, found by the API key (one workspace per key, per the
 * spec): two keys keep two mirrors, so no key ever reads rows another key's workspace returned.
 * A mirror is opened on first need (loading the engine then), and the least recently used ones
 * are closed when all of them together hold more than SVC_MIRROR_MAX_MB.
 */
export class MirrorRegistry {
  private readonly open = new Map<string, Promise<WorkspaceMirror>>();
  private readonly dropped = new Map<string, Dropped>();
  /** Names mirrors in memory mode; on disk, names come from SVC_MIRROR_SECRET so a restart finds them. */
  private readonly namingSecret = randomBytes(32).toString('base64url');

  constructor(private readonly options: MirrorRegistryOptions) {}

  get mode(): Config['mirror'] {
    return this.options.config.mirror;
  }

  /** The name of a key's mirror: an HMAC of the key, never the key. */
  idOf(apiKey: string): string {
    const { mirror, mirrorSecret } = this.options.config;
    if (mirror === 'disk' && mirrorSecret) return journalName(mirrorSecret, apiKey);
    return createHmac('sha256', this.namingSecret).update(apiKey).digest('hex').slice(0, 40);
  }

  /** The key's mirror, opened (and on disk, replayed) if it is not held yet. */
  get(apiKey: string): Promise<WorkspaceMirror> {
    const id = this.idOf(apiKey);
    let mirror = this.open.get(id);
    if (!mirror) {
      mirror = this.create(id, apiKey);
      this.open.set(id, mirror);
      const opening = mirror;
      // Only this opening is forgotten: a newer one may hold the name by the time it fails.
      opening.catch(() => this.open.get(id) === opening && this.open.delete(id));
    }
    return mirror;
  }

  /** The key's mirror if it is held now; nothing is opened or loaded. */
  async held(apiKey: string): Promise<WorkspaceMirror | undefined> {
    return this.open.get(this.idOf(apiKey));
  }

  /** The key's mirror if it is held, or on disk (then opened): what a write must keep true. */
  async existing(apiKey: string): Promise<WorkspaceMirror | undefined> {
    const held = this.open.get(this.idOf(apiKey));
    if (held) return held;
    const { mirror, mirrorSecret, stateDir } = this.options.config;
    if (mirror === 'disk' && mirrorSecret && existsSync(Journal.at(stateDir, mirrorSecret, apiKey).path)) return this.get(apiKey);
    return undefined;
  }

  /** When and why the key's mirror was last dropped, if it was and is not held again. */
  droppedFor(apiKey: string): Dropped | undefined {
    const id = this.idOf(apiKey);
    return this.open.has(id) ? undefined : this.dropped.get(id);
  }

  /** Forgets a key's mirror everywhere, its journal included: the API refused the key. */
  async discard(apiKey: string, reason: string): Promise<void> {
    const id = this.idOf(apiKey);
    const mirror = this.open.get(id);
    this.open.delete(id);
    this.dropped.set(id, { at: Date.now(), reason });
    const held = await mirror?.catch(() => undefined);
    if (held) held.discard();
    else if (this.mode === 'disk' && this.options.config.mirrorSecret) Journal.at(this.options.config.stateDir, this.options.config.mirrorSecret, apiKey).discard();
  }

  /**
   * Closes the least recently used mirrors until those held fit SVC_MIRROR_MAX_MB together; `keep`
   * (the one just used) goes last. On disk a closed mirror's journal stays, and reopens on the next question.
   */
  async fitMemory(keep?: WorkspaceMirror): Promise<void> {
    const limit = this.options.config.mirrorMaxMb * 1024 * 1024;
    const held = (await Promise.all([...this.open.values()].map((mirror) => mirror.catch(() => undefined)))).filter((mirror): mirror is WorkspaceMirror => mirror !== undefined);
    // A host lost or closed meanwhile (another key's query past its limits, another fit) holds
    // nothing any more: it must not fail this key's call, nor be closed again under its name.
    const sized = await Promise.all(held.map(async (mirror) => ({ mirror, bytes: await mirror.memoryBytes().catch(() => undefined) })));
    const alive = sized.filter((entry): entry is { mirror: WorkspaceMirror; bytes: number } => entry.bytes !== undefined);
    let total = alive.reduce((sum, entry) => sum + entry.bytes, 0);
    const byAge = alive.filter((entry) => entry.mirror !== keep).sort((a, b) => a.mirror.lastUsed - b.mirror.lastUsed);
    for (const { mirror, bytes } of byAge) {
      if (total <= limit) break;
      total -= bytes;
      await this.close(mirror, `dropped to keep all mirrors within SVC_MIRROR_MAX_MB=${this.options.config.mirrorMaxMb} (least recently used)`);
    }
  }

  async closeAll(): Promise<void> {
    const held = await Promise.all([...this.open.values()].map((mirror) => mirror.catch(() => undefined)));
    this.open.clear();
    for (const mirror of held) mirror?.close();
  }

  /**
   * Forgets a held mirror and closes it (on disk its journal stays, and reopens on the next question),
   * keeping why for that question: dropped to fit the budget, or its host stopped past a limit.
   */
  private async close(mirror: WorkspaceMirror, reason: string, how: 'dropped' | 'stopped' = 'dropped'): Promise<void> {
    const entry = this.open.get(mirror.id);
    // The name may already belong to a newer opening (this one was lost, and closed then, and asked for again): that one stays.
    if (!entry || (await entry.catch(() => undefined)) !== mirror || this.open.get(mirror.id) !== entry) return;
    this.open.delete(mirror.id);
    this.dropped.set(mirror.id, { at: Date.now(), reason });
    if (how === 'stopped') this.options.logger.warn({ mirror: mirror.id, reason }, 'workspace mirror stopped');
    else this.options.logger.info({ mirror: mirror.id, reason }, 'workspace mirror closed');
    mirror.close();
  }

  private async create(id: string, apiKey: string): Promise<WorkspaceMirror> {
    const { config, tables, logger } = this.options;
    // A host lost while it opens fails the opening itself; once opened, its mirror is closed through the one path.
    let opened: WorkspaceMirror | undefined;
    // Loaded with the first mirror: node:child_process alone took about 2.4 ms of every start.
    const { RemoteDatabase } = await import('./remote.js');
    const db = await RemoteDatabase.open(
      {
        memoryLimitMb: config.mirrorMaxMb,
        threads: THREADS,
        onLost: (reason) => void (opened && this.close(opened, `stopped (${reason})`, 'stopped')),
        onStderr: (line) => logger.warn({ mirror: id, line }, "the mirror's engine wrote to stderr"),
      },
      tables,
    );
    if (config.mirror !== 'disk' || !config.mirrorSecret) return (opened = new WorkspaceMirror(id, db, tables));
    const journal = Journal.at(config.stateDir, config.mirrorSecret, apiKey);
    const mirror = (opened = new WorkspaceMirror(id, db, tables, journal));
    try {
      const replay = journal.replay();
      if (replay.stoppedEarly) logger.warn({ mirror: id, reason: replay.stoppedEarly }, "the mirror's file was not read to its end");
      for (const changes of replay.changes) await mirror.restore(changes);
      if (replay.changes.length) logger.info({ mirror: id, records: replay.changes.length }, 'workspace mirror resumed from disk');
    } catch (error) {
      // Nothing holds this mirror once its opening fails: its host and its file's handle go with it.
      mirror.close();
      throw error;
    }
    return mirror;
  }
}
