/**
 * The replays tools (tools/replays.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { apiRequests, textOf } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';
import { expectListing, expectNothingSecret, expectRefused, resultLog } from '../support/tool-checks.js';

const log = resultLog();
const { sandbox, server, call } = useServer({ env: { SVC_CONFIRM: 'none' }, onResult: log.keep });

describe('tools/list', () => {
  it('lists get_replay as a read with an output schema', async () => {
    await expectListing(server, { tools: ['get_replay'], reads: ['get_replay'], outputs: ['get_replay'] });
  });
});

describe('each tool reaches its route', () => {
  it('get_replay: reads a replay', async () => {
    const replay = structured(await call('get_replay', { replayId: sandbox.seed.replay }));
    expect(replay).toMatchObject({ parentInteractionId: sandbox.seed.negativeConversation });
    expect(apiRequests(sandbox).map((request) => `${request.method} ${request.path}`)).toEqual([`GET /v2/replays/${sandbox.seed.replay}/public`]);
  });
});

describe('documented rules are refused before sending', () => {
  it('names the field and sends nothing', async () => {
    await expectRefused(call, sandbox, [['get_replay', {}, 'replayId: is required']]);
  });
});

describe('errors explained', () => {
  it('explains a 404 with the tool that gives replay ids', async () => {
    const replay = await call('get_replay', { replayId: seedId('replay', 'a', 77) });
    expect(replay.isError).toBe(true);
    expect(textOf(replay)).toContain('Not found (404)');
    expect(textOf(replay)).toContain('get_refine_session');
  });

  it("get_replay with an id that is not a UUID gets the API's 400", async () => {
    const result = await call('get_replay', { replayId: 'not-a-uuid' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('replayId must be a UUID');
    expect(apiRequests(sandbox).at(-1)?.status).toBe(400);
  });
});

describe('resources', () => {
  it('serves a replay as a resource', async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text(`svc://replays/${sandbox.seed.replay}`)).toContain(sandbox.seed.negativeConversation);
    const templates = (await server.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
    expect(templates).toEqual(expect.arrayContaining(['svc://replays/{replayId}']));
  });
});

describe('secrets never leave', () => {
  it('shows no API key in any result or log line, nor in a preview', () => {
    expectNothingSecret(log, [server], Object.values(sandbox.keys));
  });
});
