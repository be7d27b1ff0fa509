import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config.js';
import { defineTool, type ToolDefinition } from '../../src/engine/define.js';
import { runTool } from '../../src/engine/pipeline.js';
import { keyRedaction } from '../../src/redaction/redaction.js';
import { NO_ORIGIN, type Session } from '../../src/engine/types.js';
import type { ApiRequest } from '../../src/upstream/client.js';
import { ConnectionError, RateLimitError, UpstreamServerError } from '../../src/upstream/errors.js';
import { errorResult } from '../../src/engine/errors.js';
import { createLogger } from '../../src/log.js';
import { WriteRefusals } from '../../src/upstream/write-refusals.js';
import { catalog } from '../../tools/index.js';
import { textOf } from '../support/harness.js';

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const config = loadConfig([], { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: KEY, SVC_CONFIRM: 'none' });

/** A session whose API answers every request with `status` and `body`, as the transport would see it. */
function sessionAnswering(respond: (request: ApiRequest) => unknown): Session {
  return {
    options: { config, catalog, apiKey: KEY, logger: createLogger('silent'), client: { writeRefusals: new WriteRefusals() } } as unknown as Session['options'],
    api: { request: async (request: ApiRequest) => respond(request) } as Session['api'],
    server: { sendLoggingMessage: async () => undefined } as unknown as Session['server'],
    toolsByName: new Map(),
    catalogByName: new Map(),
    keyRedaction: keyRedaction(KEY),
    stated: new Set(),
  };
}

const run = (tool: ToolDefinition, session: Session, rawArgs: Record<string, unknown> = {}) => runTool({ session, tool, rawArgs, origin: NO_ORIGIN, signal: new AbortController().signal });

const write = (extra: Partial<ToolDefinition> = {}) =>
  defineTool({
    name: 'make_thing',
    title: 'Make a thing',
    scope: 'write',
    description: 'Test write.',
    input: z.object({ name: z.string() }),
    route: { method: 'POST', path: '/v2/things', body: ['name'] },
    ...extra,
  });

describe('write outcomes (finding 4)', () => {
  it('reports a write the API answered as sent with its status, when the response cannot be shaped', async () => {
    const session = sessionAnswering((request) => {
      request.onStatus?.(201);
      return { id: 't1' };
    });
    const result = await run(
      write({
        transform: () => {
          throw new RangeError('Invalid time value');
        },
      }),
      session,
      { name: 'n' },
    );
    expect(textOf(result)).toMatch(/^Sent; the API answered HTTP 201, so the request was applied\./);
    expect(textOf(result)).toContain('Do not send it again');
    expect(textOf(result)).not.toContain('Nothing suggests');
  });
  it('decides by what the transport saw: a 2xx whose body was lost is still sent', async () => {
    const session = sessionAnswering((request) => {
      request.onStatus?.(200);
      throw new ConnectionError('Could not reach the API (socket closed)', { method: 'POST', path: '/v2/things' });
    });
    const result = await run(write(), session, { name: 'n' });
    expect(textOf(result)).toMatch(/^Sent; the API answered HTTP 200/);
    expect(textOf(result)).not.toContain('may or may not');
  });
  it('shapes a write response holding an out-of-range timestamp, and a later full read of such records', async () => {
    const session = sessionAnswering((request) => {
      request.onStatus?.(201);
      return { id: 't1', createdAt: 1e300, updatedAt: -8.64e15 - 1 };
    });
    const created = await run(write(), session, { name: 'n' });
    expect(created.isError).toBeFalsy();
    const list = catalog.flatMap((group) => group.tools).find((tool) => tool.name === 'list_articles')!;
    const read = sessionAnswering((request) => {
      request.onStatus?.(200);
      return [
        { id: 'a1', title: 'odd', createdAt: 1e300, updatedAt: 9e15 },
        { id: 'a2', title: 'fine', createdAt: Date.UTC(2026, 0, 1) },
      ];
    });
    const listed = await run(list, read, { view: 'full' });
    expect(listed.isError).toBeFalsy();
    expect(textOf(listed)).toContain('a2');
  });
});

describe('what a failure says about retries', () => {
  const read = defineTool({ name: 'read_thing', title: 'Read a thing', scope: 'read', description: 'Test read.', input: z.object({}), route: { method: 'GET', path: '/v2/things' } });
  const setting = { rateLimit: config.rateLimit, keyFrom: 'environment' as const };
  const failed = (error: RateLimitError | UpstreamServerError, attempts: number) => Object.assign(error, { attempts });

  it('claims a backoff only when the request was in fact sent again', () => {
    const request = { method: 'GET', path: '/v2/things' };
    expect(textOf(errorResult(read, failed(new RateLimitError('429', request, 429), 5), setting))).toMatch(
      /^Rate limited by the API \(429\) after 5 attempts with backoff\. The configured budget is 100 requests per 60 s \(SVC_RATE_LIMIT\)/,
    );
    expect(textOf(errorResult(read, failed(new RateLimitError('429', request, 429), 1), setting))).toMatch(/^Rate limited by the API \(429\)\. /);
    expect(textOf(errorResult(write(), failed(new UpstreamServerError('503', { method: 'POST', path: '/v2/things' }, 503), 1), setting))).not.toMatch(/retr|backoff/);
  });
});
