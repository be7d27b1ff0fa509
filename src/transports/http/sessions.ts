import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../../log.js';
import type { Refusal } from '../../access.js';
import type { Credentials } from './credentials.js';

/** How often idle sessions are looked for, at most. */
const SWEEP_EVERY_MS = 30_000;
/** What a client refused a session for the caps is told to wait before trying again. */
const CAPPED_RETRY_AFTER_S = '60';

export interface SessionLimits {
  maxSessions: number;
  maxSessionsPerKey: number;
  sessionIdleMs: number;
}

export interface OpenSession {
  id: string;
  keyHash: string;
  /** Opened through a read-only OAuth grant: its server lists and runs read tools only. */
  readOnly: boolean;
  transport: StreamableHTTPServerTransport;
  /** When a request other than a GET stream last began or ended. */
  lastActive: number;
  /** POST and DELETE requests open on the session. GET streams are not counted: a client holds one open while idle. */
  calls: number;
}

/**
 * A place in the table for one session, taken before its initialize is handled so that a burst
 * cannot overshoot the caps, and given back exactly once: when the session closes, when an
 * initialize opens none, or when the table closes the session to make room.
 */
export class Slot {
  session?: OpenSession;
  private released = false;

  constructor(
    private readonly table: SessionTable,
    readonly keyHash: string,
  ) {}

  open(session: OpenSession): void {
    this.session = session;
    this.table.opened(this);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.table.freed(this);
  }
}

/**
 * The sessions of one HTTP server and their caps: in total (503 beyond it) and per key (429). A
 * key at its cap whose least recently used session has no call in flight gets that session closed
 * to make room, never another key's: a client that opens a session per call and leaves without
 * DELETE (a script, a CLI run once per call) keeps working, and a key can only crowd out itself.
 * A session with no request but its GET stream for `sessionIdleMs` is closed, stream and all, by
 * the sweep that runs from `startSweeping` to `stopSweeping`.
 */
export class SessionTable {
  private readonly sessions = new Map<string, Slot>();
  private readonly slotsPerKey = new Map<string, Set<Slot>>();
  private slotsTaken = 0;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly limits: SessionLimits,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): OpenSession | undefined {
    return this.sessions.get(id)?.session;
  }

  /** A place for a new session of `keyHash`, or why there is none (the caps). */
  reserve(keyHash: string): Slot | Refusal {
    const ofKey = this.slotsPerKey.get(keyHash);
    if (ofKey && ofKey.size >= this.limits.maxSessionsPerKey) {
      const idlest = leastRecentlyUsedIdle(ofKey);
      if (!idlest) {
        return {
          status: 429,
          message: `Too many sessions for this API key: at most ${this.limits.maxSessionsPerKey} at once (SVC_MAX_SESSIONS_PER_KEY), each with a call in flight; wait for one to finish, or close unused sessions (DELETE with the Mcp-Session-Id)`,
          headers: { 'retry-after': CAPPED_RETRY_AFTER_S },
        };
      }
      this.close(idlest, 'a newer session of the same key needed its place');
    }
    if (this.slotsTaken >= this.limits.maxSessions) {
      return {
        status: 503,
        message: `Too many sessions: this server holds at most ${this.limits.maxSessions} (SVC_MAX_SESSIONS); close unused sessions (DELETE with the Mcp-Session-Id) or try again later`,
        headers: { 'retry-after': CAPPED_RETRY_AFTER_S },
      };
    }
    const slot = new Slot(this, keyHash);
    this.slotsTaken++;
    this.slotsPerKey.set(keyHash, (this.slotsPerKey.get(keyHash) ?? new Set()).add(slot));
    return slot;
  }

  /** Counts a request on the session from now until `done` fires: it is in use, and active when it ends. */
  track(session: OpenSession, done: { once(event: 'close', listener: () => void): unknown }): void {
    session.calls++;
    session.lastActive = Date.now();
    done.once('close', () => {
      session.calls--;
      session.lastActive = Date.now();
    });
  }

  /** Closes every session idle since before `now - sessionIdleMs`, open GET streams notwithstanding. */
  evictIdle(now = Date.now()): void {
    const cutoff = now - this.limits.sessionIdleMs;
    for (const slot of [...this.sessions.values()]) {
      if (slot.session!.calls === 0 && slot.session!.lastActive < cutoff) this.close(slot, 'idle');
    }
  }

  startSweeping(): void {
    this.sweeper = setInterval(() => this.evictIdle(), Math.min(SWEEP_EVERY_MS, this.limits.sessionIdleMs));
    this.sweeper.unref();
  }

  stopSweeping(): void {
    clearInterval(this.sweeper);
  }

  /** The drain's last step: every session's transport closes, GET streams included. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((slot) => slot.session!.transport.close().catch(() => undefined)));
  }

  /** Gives the slot back at once, then closes the transport (whose own close then finds nothing left to free). */
  private close(slot: Slot, reason: string): void {
    const session = slot.session!;
    slot.release();
    this.logger.info({ session: session.id, key: session.keyHash, reason }, 'closing session');
    void session.transport.close().catch(() => undefined);
  }

  /** @internal Called by Slot. */
  opened(slot: Slot): void {
    this.sessions.set(slot.session!.id, slot);
  }

  /** @internal Called by Slot. */
  freed(slot: Slot): void {
    this.slotsTaken--;
    const ofKey = this.slotsPerKey.get(slot.keyHash);
    ofKey?.delete(slot);
    if (ofKey?.size === 0) this.slotsPerKey.delete(slot.keyHash);
    if (slot.session) this.sessions.delete(slot.session.id);
  }
}

/** A session stays with the key, and the access, that opened it: anyone else is refused. */
export function keyBindingRefusal(session: OpenSession, { keyHash, readOnly }: Pick<Credentials, 'keyHash' | 'readOnly'>): Refusal | undefined {
  if (session.keyHash !== keyHash) return { status: 403, message: 'Forbidden: this session belongs to another API key' };
  if (session.readOnly === readOnly) return undefined;
  return { status: 403, message: `Forbidden: this session was opened with ${session.readOnly ? 'read-only' : 'read and write'} access; open a new session` };
}

function leastRecentlyUsedIdle(slots: Set<Slot>): Slot | undefined {
  let idlest: Slot | undefined;
  for (const slot of slots) {
    const session = slot.session;
    if (session && session.calls === 0 && (!idlest || session.lastActive < idlest.session!.lastActive)) idlest = slot;
  }
  return idlest;
}
