/**
 * What the HTTP server's parts share: the runtime, the session table, the rules a request to /mcp
 * is checked against, the OAuth gate (SVC_AUTH=oauth), and the drain's state.
 */
import type { Config } from '../config.js';
import type { OAuthGate } from '../oauth/index.js';
import type { Runtime } from '../runtime.js';
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
}

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
  };
}

/** Plugs the OAuth gate in: its routes are served, and its access tokens stand for keys on /mcp. */
export function useOAuth(ctx: HttpContext, gate: OAuthGate | undefined): void {
  ctx.oauth = gate;
  ctx.rules.accessTokens = gate;
}
