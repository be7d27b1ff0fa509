/**
 * The sandbox's routes by path: the simulated API under /v2, the sandbox's own controls under
 * /__sandbox/, and 404 for anything else. A request that fails unexpectedly is answered 500.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, MSG_INTERNAL, noRouteBody } from '../errors.js';
import { handleApiRequest } from './api.js';
import type { ServerContext } from './context.js';
import { handleControlRequest } from './control.js';
import { methodOf, send } from './wire.js';

export function dispatch(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): void {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://sandbox.local');
  } catch {
    send(res, 400, errorBody(400, 'Bad Request'));
    return;
  }
  const path = url.pathname;
  let handling: Promise<void>;
  if (path.startsWith('/__sandbox/')) handling = handleControlRequest(ctx, req, res, url);
  else if (path === '/v2' || path.startsWith('/v2/')) handling = handleApiRequest(ctx, req, res, url);
  else handling = Promise.resolve(send(res, 404, noRouteBody(methodOf(req), path)));
  handling.catch((err) => {
    ctx.lastInternalError = err;
    send(res, 500, errorBody(500, MSG_INTERNAL));
  });
}
