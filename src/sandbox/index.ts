/**
 * Embedded sandbox: a simulated Support-Agent Workspace API (as its specification describes it) served in
 * memory over node:http on loopback. Demo backend and upstream of the tests.
 */
export { startSandbox } from './server/start.js';
export type { Fault, RecordedRequest, Sandbox, SandboxKey, SandboxOptions } from './handle.js';
export { SEED } from './seed-ids.js';
export type { SeedIds } from './seed-ids.js';
export type { RateLimitSetting, RateScope } from './ratelimit.js';
export { HttpError } from './errors.js';
export type { RouteDef, RouteRequest, RouteResult, RouteHandler } from './router.js';
