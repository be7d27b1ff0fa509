/**
 * The HTTP server's shutdown (SIGTERM): /readyz turns 503 and new sessions (every stateless
 * request) get 503, so a load balancer moves traffic elsewhere; calls and tasks in flight get
 * SVC_DRAIN_MS to finish, then sessions, connections and the runtime close.
 */
import type { Server } from 'node:http';
import { waitWhile } from '../drain.js';
import type { HttpContext } from './context.js';

/** Tasks still running are handed back this long before the drain ends (at most half of it), so a client awaiting one here still gets the answer. */
const TASK_HANDBACK_MS = 2000;

export async function drainHttpServer(ctx: HttpContext, httpServer: Server, reason: string): Promise<void> {
  const { runtime, config, sessions } = ctx;
  const { runningTasks, logger } = runtime;
  ctx.draining = true;
  logger.info(
    { reason, inFlight: ctx.inFlight, tasks: runningTasks.size, sessions: sessions.size, drainMs: config.drainMs },
    'shutting down: not ready, no new sessions, finishing calls and tasks in flight',
  );
  sessions.stopSweeping();
  const deadline = Date.now() + config.drainMs;
  // Calls in flight are POSTs; the open-ended GET streams of sessions end when the sessions close.
  await waitWhile(() => ctx.inFlight > 0 || runningTasks.size > 0, deadline - Math.min(TASK_HANDBACK_MS, config.drainMs / 2));
  if (runningTasks.size > 0) {
    logger.warn({ tasks: runningTasks.size }, 'drain bound reached: tasks still running end as failed');
    await runningTasks.failAll('This server node was stopped before the task finished (SVC_DRAIN_MS ran out). Start the call again.');
  }
  await waitWhile(() => ctx.inFlight > 0, deadline);
  const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
  httpServer.closeIdleConnections();
  await sessions.closeAll();
  httpServer.closeAllConnections();
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
  await ctx.oauth?.close();
  await Promise.race([runtime.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  logger.info('stopped');
}
