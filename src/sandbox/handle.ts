/**
 * The sandbox as its callers see it: the options `startSandbox` takes, the handle it returns, and
 * the records that handle shows (keys, recorded requests, faults).
 */
import type { RateLimitSetting, RateScope } from './ratelimit.js';
import type { SeedIds } from './seed-ids.js';
import type { SandboxState } from './state.js';

export interface SandboxOptions {
  /** default 0 (ephemeral) */
  port?: number;
  /** default '127.0.0.1' */
  host?: string;
  /**
   * Throttle: default 100 per 60000 ms, true sliding window; scope `key` (default, one budget per
   * API key, as the server's default SVC_RATE_SCOPE) or `global` (one budget for all keys);
   * `off`: no throttle (`setRateLimit` turns one on again).
   */
  rateLimit?: RateLimitSetting;
  /** generated conversations added to workspace A (`--sandbox-conversations`); default 0 */
  conversations?: number;
  /** ingestion job progression; default 1500/1500 */
  jobTimings?: { pendingMs: number; inProgressMs: number };
  /** refine iterations: each of queued, generating_changes, replaying lasts stepMs; default 1500 */
  refineTimings?: { stepMs: number };
  /** test-set runs stay `running` for runMs; default 3000 */
  testRunTimings?: { runMs: number };
  /** clock, default Date.now */
  now?: () => number;
}

export interface SandboxKey {
  name: string;
  key: string;
  scopes: ('read' | 'write')[];
  workspaceId: string;
  revoked?: boolean;
}

/** The four keys of a run by name: what `svc-mcp sandbox` prints and `/__sandbox/info` answers. */
export interface SandboxKeys {
  admin: string;
  readOnly: string;
  otherWorkspace: string;
  revoked: string;
}

export interface RecordedRequest {
  at: number;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** lowercased names; authorization is stored as `Bearer <redacted:KEYNAME>` (`unknown` when no key matched), x-api-key as `<redacted>` */
  headers: Record<string, string>;
  body: unknown;
  /** final status; 0 when a fault dropped the connection */
  status: number;
  /** name of the key the bearer token identified (even when later rejected), else null */
  keyName: string | null;
}

export interface Fault {
  method?: string;
  /** exact path or prefix ending in '*' */
  path?: string;
  status?: number;
  body?: unknown;
  delayMs?: number;
  /** destroy the socket without a response */
  drop?: boolean;
  /** default 1 */
  times?: number;
}

export interface Sandbox {
  /** e.g. http://127.0.0.1:43123 (no trailing slash; API paths begin /v2) */
  url: string;
  keys: SandboxKeys;
  /** every request to /v2 routes, in arrival order */
  requests: RecordedRequest[];
  clearRequests(): void;
  /** Also forgets earlier arrivals; `scope` defaults to the current one. */
  setRateLimit(limit: number, windowMs: number, scope?: RateScope): void;
  /** queued; each consumed by the first matching request */
  injectFaults(faults: Fault[]): void;
  clearFaults(): void;
  close(): Promise<void>;
  /** extra: live in-memory state (workspaces, key records) for white-box tests */
  state: SandboxState;
  /** extra: deterministic seed ids */
  seed: SeedIds;
  /** extra: the four keys with scopes and workspace */
  keyRecords(): SandboxKey[];
  /** extra: the last non-HttpError thrown by a handler (answered as 500) */
  lastInternalError(): unknown;
}
