/**
 * What the sandbox server's parts share: the simulated workspaces and their keys, the throttle,
 * the API's routes, the recorded requests, the queued faults, and the last internal error.
 */
import type { RecordedRequest, SandboxKeys, SandboxOptions } from '../handle.js';
import { ScopedThrottle } from '../ratelimit.js';
import { Router } from '../router.js';
import { allRoutes } from '../routes/index.js';
import type { SandboxState } from '../state.js';
import { FaultQueue } from './faults.js';
import { createKeys, keysByName } from './keys.js';

export interface ServerContext {
  state: SandboxState;
  /** the four keys of this run by name */
  keys: SandboxKeys;
  limiter: ScopedThrottle;
  router: Router;
  /** every /v2 request, in arrival order */
  requests: RecordedRequest[];
  faults: FaultQueue;
  /** generated conversations in workspace A */
  generatedConversations: number;
  /** the last error, not an HttpError, that a request met (answered as 500) */
  lastInternalError: unknown;
}

/** The state starts without workspaces and without its URL: the server seeds it once it listens. */
export function createContext(options: SandboxOptions): ServerContext {
  const now = options.now ?? Date.now;
  const keys = createKeys(now());
  return {
    state: {
      workspaces: new Map(),
      keys,
      baseUrl: '',
      now,
      jobTimings: options.jobTimings ?? { pendingMs: 1500, inProgressMs: 1500 },
      refineTimings: options.refineTimings,
      testRunTimings: options.testRunTimings,
    },
    keys: keysByName(keys),
    limiter: new ScopedThrottle(options.rateLimit),
    router: new Router(allRoutes),
    requests: [],
    faults: new FaultQueue(),
    generatedConversations: options.conversations ?? 0,
    lastInternalError: undefined,
  };
}
