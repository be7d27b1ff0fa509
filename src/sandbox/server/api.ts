/** One request to the simulated API (/v2): recorded, checked, then answered by its route's handler. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, HttpError, MSG_INTERNAL } from '../errors.js';
import type { RouteResult } from '../router.js';
import { checkApiRequest, type Admitted, type ApiRequest } from './check.js';
import type { ServerContext } from './context.js';
import { keyOfBearer } from './keys.js';
import { recordOf } from './recorder.js';
import { methodOf, parseJsonBody, readBody, send } from './wire.js';

export async function handleApiRequest(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = methodOf(req);
  const at = ctx.state.now();
  let text: string;
  try {
    text = await readBody(req);
  } catch (err) {
    const status = err instanceof HttpError ? err.status : 400;
    send(res, status, errorBody(status, err instanceof HttpError ? err.messages : 'Bad Request'));
    return;
  }
  const request: ApiRequest = { req, url, method, named: keyOfBearer(ctx.state, req.headers.authorization), body: parseJsonBody(text) };
  const record = recordOf(req, url, at, method, request.body.value, request.named);
  ctx.requests.push(record);
  const checked = await checkApiRequest(ctx, request);
  if (checked === 'drop') {
    req.socket.destroy();
    return;
  }
  const answer = 'match' in checked ? await runHandler(ctx, request, checked) : checked;
  record.status = answer.status;
  send(res, answer.status, answer.body);
}

/** The route's answer; an HttpError it throws gives its status, anything else a 500. */
async function runHandler(ctx: ServerContext, { req, url, body }: ApiRequest, { key, workspace, match }: Admitted): Promise<{ status: number; body: unknown }> {
  try {
    const result: RouteResult = await match.def.handler({
      method: match.def.method,
      path: url.pathname,
      params: match.params,
      query: url.searchParams,
      body: body.value,
      headers: req.headers,
      workspace,
      key,
      state: ctx.state,
      now: ctx.state.now(),
    });
    return { status: result.status ?? 200, body: result.body };
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, body: err.toBody() };
    ctx.lastInternalError = err;
    return { status: 500, body: errorBody(500, MSG_INTERNAL) };
  }
}
