/**
 * What the HTTP server's parts share: the runtime, the session table, the rules a request to /mcp
 * is checked against, the OAuth gate (SVC_AUTH=oauth), and the drain's state.
 */
import type { Config } from '../../config.js';
import type { OAuthGate } from '../../oauth/index.js';
import type { Runtime } from '../../runtime.js';
import { BodyBudget } from './body-budget.js';
import { ClientAddresses } from '../../client-address.js';
import type { CredentialRules } from './credentials.js';
import { KeyVerifier } from './key-check.js';
import { SessionTable } from './sessions.js';

export interface HttpContext {
  runtime: Runtime;
  config: Config;
  sessions: SessionTable;
  /** `port` is the requested one until the listener reports the one it got. */
  rules: CredentialRules;
  /** SVC_AUTH=oauth: its routes and access tokens, set once the listener's address (the sandbox's default public URL) is known. */
  oauth?: OAuthGate;
  /** Requests to /mcp being answered, GET streams excepted: the calls a drain waits for. */
  inFlight: number;
  /** Set by a shutdown: not ready, and no new session (no stateless request) is served. */
  draining: boolean;
  /** Who sent a request (SVC_TRUST_PROXY), for every per-address limit. */
  addresses: ClientAddresses;
  /** Request body bytes held at once, in total and per client address. */
  bodies: BodyBudget;
}

/**
 * Request body bytes held at once: 64 MiB in all and 16 MiB per client address, or room for four
 * and one of the largest message allowed (SVC_MAX_MESSAGE_BYTES) when that is more.
 */
export const BODY_BYTES = { total: 64 * 1024 * 1024, perAddress: 16 * 1024 * 1024 };

export function createHttpContext(runtime: Runtime): HttpContext {
  const { config, logger } = runtime;
  return {
    runtime,
    config,
    sessions: new SessionTable(config, logger),
    rules: {
      port: config.httpPort,
      allowedHosts: config.allowedHosts,
      allowedOrigins: config.allowedOrigins,
      serverKey: config.apiKey,
      verifier: new KeyVerifier(runtime.client, logger),
    },
    inFlight: 0,
    draining: false,
    addresses: new ClientAddresses(config.trustProxy),
    bodies: new BodyBudget(Math.max(BODY_BYTES.total, 4 * config.maxMessageBytes), Math.max(BODY_BYTES.perAddress, config.maxMessageBytes)),
  };
}

/** Plugs the OAuth gate in: its routes are served, and its access tokens stand for keys on /mcp. */
export function useOAuth(ctx: HttpContext, gate: OAuthGate | undefined): void {
  ctx.oauth = gate;
  ctx.rules.accessTokens = gate;
}
