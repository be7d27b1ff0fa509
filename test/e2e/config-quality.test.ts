/**
 * Agent configuration and quality tools (actions, rules, replays, refine, testing, tags) end to
 * end: a real SDK client over the in-memory transport against svc-mcp and the sandbox, in process.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { validateInput } from '../../src/engine/pipeline.js';
import { buildRequest } from '../../src/engine/request.js';
import { seedId } from '../../src/sandbox/ids.js';
import { MOCK_STORE_TOKEN } from '../../src/sandbox/mock.js';
import { catalog } from '../../tools/index.js';
import { apiRequests, callAsTask, callsEnded, textOf, waitFor } from '../support/harness.js';
import { structured, useConnection, useServer } from '../support/fixture.js';

const STEP_MS = 400;
const SECRET_WRAPPED = 'sk_live_WRAPPED_9f8e7d6c';
const SECRET_PLAIN = 'plain-secret-5a4b3c2d';

const results: string[] = [];

const ownTools = new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool]));
const conv = (n: number) => seedId('conversation', 'a', n);
const botEvent = (n: number) => `e0000000-000a-4000-8${String(n).padStart(3, '0')}-000000000002`;

/** Previews, kept apart: they show the caller's own values, since what a preview shows is what is sent (design 10.4). */
const previews: string[] = [];

function keep(result: CallToolResult) {
  ((result.structuredContent as { sent?: unknown } | undefined)?.sent === false ? previews : results).push(JSON.stringify(result));
}

const { sandbox, server, call } = useServer({
  sandbox: { refineTimings: { stepMs: STEP_MS }, testRunTimings: { runMs: 200 } },
  env: { SVC_CONFIRM: 'none' },
  onResult: keep,
});
const guarded = useConnection(sandbox, { env: { SVC_CONFIRM: 'destructive' }, onResult: keep });

async function startRefine(n: number, outcome: string, stepMs = STEP_MS) {
  const res = await fetch(`${sandbox.url}/__sandbox/refine`, { method: 'POST', body: JSON.stringify({ interactionId: conv(n), eventId: botEvent(n), outcome, stepMs }) });
  expect(res.status).toBe(201);
}

const NAMES = [
  'list_actions',
  'create_action',
  'update_action',
  'add_data_step',
  'assign_action_to_agents',
  'test_action',
  'test_data_step',
  'list_rule_versions',
  'get_rule_version',
  'get_replay',
  'get_refine_session',
  'wait_for_refine_session',
  'add_cases_to_criteria_group',
  'start_test_set_run',
  'create_tag',
];

describe('tools/list', () => {
  it('lists all 15 tools with their hints, output schemas on documented results, and task support for the wait', async () => {
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of NAMES) expect(byName.has(name), name).toBe(true);
    const hints = (name: string) => byName.get(name)!.annotations;
    for (const name of ['list_actions', 'list_rule_versions', 'get_rule_version', 'get_replay', 'get_refine_session', 'wait_for_refine_session']) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    }
    for (const name of ['test_action', 'test_data_step', 'start_test_set_run']) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    }
    for (const name of ['create_action', 'add_data_step', 'create_tag']) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    }
    for (const name of ['update_action', 'assign_action_to_agents', 'add_cases_to_criteria_group']) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    }
    const withOutput = NAMES.filter((name) => byName.get(name)!.outputSchema);
    expect(withOutput.sort()).toEqual([
      'add_cases_to_criteria_group',
      'create_tag',
      'get_refine_session',
      'get_replay',
      'get_rule_version',
      'list_actions',
      'list_rule_versions',
      'start_test_set_run',
    ]);
    expect(byName.get('wait_for_refine_session')!.execution).toEqual({ taskSupport: 'optional' });
    for (const name of NAMES) expect((byName.get(name)!.description ?? '').length, name).toBeLessThanOrEqual(300);
  });
});

describe('each tool reaches its route', () => {
  it('create_action, update_action, add_data_step, assign_action_to_agents, test_action, test_data_step, list_actions: set up an attribute end to end with the documented bodies', async () => {
    const created = structured(await call('create_action', { name: 'Order status', alwaysGet: true, description: 'Status of the latest order' }));
    const toolId = created.id as string;
    structured(await call('update_action', { toolId, inputSchema: [{ name: 'orderId', type: 'string', required: true, source: 'metadata', path: 'order_id' }] }));
    const url = `${sandbox.url}/__sandbox/mock/orders/\${orderId}`;
    const step = structured(
      await call('add_data_step', { toolId, stepNumber: 1, name: 'Get order', url, method: 'GET', headers: { Accept: 'application/json' }, responseMapping: { status: 'status', all: '.' } }),
    );
    structured(await call('update_action', { toolId, outputSchema: [{ name: 'orderStatus', type: 'string', path: `${step.id}.status`, sendToLlm: true, source: 'apiResponse' }] }));
    structured(await call('assign_action_to_agents', { toolId, botIds: sandbox.seed.bots.storeAssistant, channels: ['chat'] }));
    const run = structured(await call('test_action', { toolId, inputs: { orderId: 'NW-1001' } }));
    expect(run).toMatchObject({ success: true, output: { orderStatus: expect.any(String) } });
    const one = structured(await call('test_data_step', { id: step.id, inputs: { orderId: '42' } }));
    expect(one).toMatchObject({ success: true, status: 200, response: { orderId: '42' } });

    const requests = apiRequests(sandbox);
    expect(requests.map((request) => `${request.method} ${request.path} ${request.status}`)).toEqual([
      'POST /v2/hc-tools/public 201',
      `PATCH /v2/hc-tools/${toolId}/public 200`,
      'POST /v2/api-function-configs/public 201',
      `PATCH /v2/hc-tools/${toolId}/public 200`,
      'POST /v2/hc-tools/junctions/public 201',
      `POST /v2/hc-tools/${toolId}/test-run/public 200`,
      'POST /v2/api-function-configs/test-run/public 200',
    ]);
    expect(requests[0].body).toEqual({ name: 'Order status', alwaysGet: true, description: 'Status of the latest order' });
    expect(requests[1].body).toEqual({ inputSchema: [{ name: 'orderId', type: 'string', required: true, source: 'metadata', path: 'order_id' }] });
    expect(requests[2].body).toEqual({ toolId, stepNumber: 1, name: 'Get order', url, method: 'GET', headers: { Accept: 'application/json' }, responseMapping: { status: 'status', all: '.' } });
    expect(requests[4].body).toEqual({ toolId, botIds: [sandbox.seed.bots.storeAssistant], channels: ['chat'] });
    expect(requests[5].body).toEqual({ inputs: { orderId: 'NW-1001' } });
    expect(requests[6].body).toEqual({ id: step.id, inputs: { orderId: '42' } });

    const attributes = structured(await call('list_actions', { kind: 'attributes' }));
    expect(attributes.actions.map((item: { name: string }) => item.name)).toEqual(['Order status', 'Customer tier']);
    expect(attributes.actions[0]).toMatchObject({ kind: 'attribute', fields: ['orderStatus'], botIds: [sandbox.seed.bots.storeAssistant] });
    const actionsOnly = structured(await call('list_actions', { kind: 'actions' }));
    expect(actionsOnly.actions.every((item: { kind: string }) => item.kind === 'action')).toBe(true);
  });

  it('list_rule_versions, get_rule_version, get_replay, get_refine_session: read rule versions, a replay and a refine session', async () => {
    const rule = sandbox.seed.rules.whereIsMyOrder;
    const versions = structured(await call('list_rule_versions', { ruleId: rule }));
    expect(versions).toMatchObject({ ruleId: rule, activeVersionId: 'v2' });
    expect(versions.versions.map((v: { versionId: string; status: string; active?: boolean }) => [v.versionId, v.status, v.active])).toEqual([
      ['v3', 'DRAFT', false],
      ['v2', 'PUBLISHED', true],
      ['v1', 'HISTORICAL', false],
    ]);
    const one = structured(await call('get_rule_version', { ruleId: rule, versionId: 'v2' }));
    expect(one.versions[0].item.flowConfig).toMatchObject({ type: 'message' });
    const replay = structured(await call('get_replay', { replayId: sandbox.seed.replay }));
    expect(replay).toMatchObject({ parentInteractionId: sandbox.seed.negativeConversation });
    const session = structured(await call('get_refine_session', { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent }));
    expect(session).toMatchObject({ active: true, status: 'active' });
    expect(textOf(await call('get_refine_session', { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent }))).toContain('untrusted-data');
    expect(apiRequests(sandbox).map((request) => `${request.method} ${request.path}`)).toEqual([
      `GET /v2/hc-rules/${rule}/versions/public`,
      `GET /v2/hc-rules/${rule}/versions/v2/public`,
      `GET /v2/replays/${sandbox.seed.replay}/public`,
      // Each session read also reads its proposed draft and the live article, to show the diff.
      ...Array.from({ length: 2 }, () => [
        `GET /v2/fix-review/interactions/${sandbox.seed.negativeConversation}/events/${sandbox.seed.negativeEvent}/session/public`,
        'POST /v2/hc-articles/ids/public',
        'POST /v2/hc-articles/ids/public',
      ]).flat(),
    ]);
  });

  it('add_cases_to_criteria_group, start_test_set_run, create_tag: attach cases, start a run with the default mode, and create a tag', async () => {
    const group = structured(await call('add_cases_to_criteria_group', { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: [sandbox.seed.testCases[2]] }));
    expect(group).toMatchObject({ id: sandbox.seed.criteriaGroup, caseCount: 3 });
    const run = structured(await call('start_test_set_run', { testSetId: sandbox.seed.testSet }));
    expect(run).toMatchObject({ status: 'running', result: null });
    structured(await call('start_test_set_run', { testSetId: sandbox.seed.testSet, ruleExecutionMode: 'simulate', promptVersionId: sandbox.seed.promptVersions.v2 }));
    const tag = structured(await call('create_tag', { tagGroupId: sandbox.seed.tagGroups.topics, tagName: 'sizing' }));
    expect(tag).toMatchObject({ tagName: 'sizing', tagGroupId: sandbox.seed.tagGroups.topics });
    const requests = apiRequests(sandbox);
    expect(requests.map((request) => [`${request.method} ${request.path}`, request.body])).toEqual([
      [`POST /v2/test-suite/criteria-groups/${sandbox.seed.criteriaGroup}/cases/public`, { caseIds: [sandbox.seed.testCases[2]] }],
      [`POST /v2/test-sets/${sandbox.seed.testSet}/runs/public`, { ruleExecutionMode: 'simulate' }],
      [`POST /v2/test-sets/${sandbox.seed.testSet}/runs/public`, { ruleExecutionMode: 'simulate', promptVersionId: sandbox.seed.promptVersions.v2 }],
      [`POST /v2/tag-groups/${sandbox.seed.tagGroups.topics}/tags/public`, { tagName: 'sizing' }],
    ]);
  });
});

describe('documented rules are refused before sending', () => {
  it('names the field and sends nothing', async () => {
    const uuid = seedId('testCase', 'a', 1);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['create_action', { name: 'x', alwaysGet: 'maybe' }, 'alwaysGet'],
      [
        'update_action',
        { toolId: 't', outputSchema: [{ name: 'status', type: 'string', path: 'status', source: 'apiResponse' }] },
        'outputSchema[0].path: must name the data step as "<stepId>.status"',
      ],
      ['update_action', { toolId: 't', outputSchema: [{ name: 'status', type: 'string', source: 'apiResponse' }] }, 'outputSchema[0].path: is required with source apiResponse'],
      ['update_action', { toolId: 't', inputSchema: [{ name: 'a', type: 'uuid' }] }, 'inputSchema[0].type: must be one of'],
      ['update_action', { toolId: 't', inputSchema: [{ name: 'a', type: 'string', source: 'cookie' }] }, 'inputSchema[0].source: must be one of'],
      ['update_action', { toolId: '' }, 'toolId: must not be empty'],
      ['add_data_step', { toolId: 't', url: 'https://api.example.com/orders/{{orderId}}' }, 'url: uses {{placeholder}} syntax'],
      ['add_data_step', { toolId: 't', url: 'https://api.example.com/orders/${orderId' }, 'url: has an unclosed ${'],
      ['add_data_step', { toolId: 't', url: 'https://x.example/a', method: 'FETCH' }, 'method: must be one of'],
      ['add_data_step', { toolId: 't', url: 'https://x.example/a', responseMapping: { a: '' } }, 'responseMapping.a'],
      ['test_data_step', { url: 'https://x.example/{{id}}' }, 'url: uses {{placeholder}} syntax'],
      ['test_action', {}, 'toolId: is required'],
      ['get_rule_version', { ruleId: 'r', versionId: ' ' }, 'versionId: must not be empty'],
      ['get_replay', {}, 'replayId: is required'],
      ['get_refine_session', { interactionId: 'c', eventId: '' }, 'eventId: must not be empty'],
      ['wait_for_refine_session', { interactionId: 'c', eventId: 'e', timeoutSeconds: 0 }, 'timeoutSeconds: must be from 1 to 3600'],
      ['add_cases_to_criteria_group', { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: [uuid, 'nope'] }, 'caseIds[1]: must be a UUID'],
      ['add_cases_to_criteria_group', { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: [uuid, seedId('testCase', 'a', 2), uuid] }, 'caseIds[2]: duplicates caseIds[0]'],
      ['add_cases_to_criteria_group', { criteriaGroupId: 'group', caseIds: [uuid] }, 'criteriaGroupId: must be a UUID'],
      [
        'add_cases_to_criteria_group',
        { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: Array.from({ length: 201 }, (_, i) => seedId('testCase', 'a', i + 1)) },
        'caseIds: must list at most 200',
      ],
      ['start_test_set_run', { testSetId: 's', ruleExecutionMode: 'reuse', promptVersionId: 'p' }, 'promptVersionId: is only valid with ruleExecutionMode simulate or execute'],
      ['start_test_set_run', { testSetId: 's', ruleExecutionMode: 'replay' }, 'ruleExecutionMode: must be one of'],
      ['create_tag', { tagGroupId: 'g', tagName: '   ' }, 'tagName: must not be empty'],
      ['create_tag', { tagGroupId: 'g' }, 'tagName: is required'],
      ['list_actions', { kind: 'functions' }, 'kind: must be one of'],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result), tool).toContain('nothing was sent');
      expect(textOf(result), tool).toContain(message);
    }
    expect(apiRequests(sandbox)).toHaveLength(0);
  });
});

describe('secrets and templates', () => {
  it('add_data_step, test_data_step, test_action: pass masked values and ${} templates through unchanged and never show a secret', async () => {
    const toolId = sandbox.seed.tools.orderStatus;
    const url = `${sandbox.url}/__sandbox/mock/orders/\${orderId}?step=\${${sandbox.seed.dataSteps.orderStatusLookup}.status}`;
    const masked = { hide: true, value: '********' };
    const added = await call('add_data_step', {
      toolId,
      stepNumber: 2,
      url,
      headers: { Authorization: { hide: true, value: `Bearer ${SECRET_WRAPPED}` }, 'X-Api-Key': SECRET_PLAIN, Accept: 'application/json' },
      body: { note: '${orderId} at ${customerTier.tier}' },
    });
    expect(added.isError).toBeFalsy();
    const sent = apiRequests(sandbox)[0].body as Record<string, any>;
    expect(sent.url).toBe(url);
    expect(sent.body).toEqual({ note: '${orderId} at ${customerTier.tier}' });
    expect(sent.headers.Authorization).toEqual({ hide: true, value: `Bearer ${SECRET_WRAPPED}` });

    const kept = await call('test_data_step', { id: sandbox.seed.dataSteps.orderStatusLookup, headers: { Authorization: masked, Accept: 'application/json' }, inputs: { orderId: '31' } });
    expect(structured(kept)).toMatchObject({ success: true, response: { authenticated: true } });
    expect(apiRequests(sandbox)[1].body).toEqual({ id: sandbox.seed.dataSteps.orderStatusLookup, headers: { Authorization: masked, Accept: 'application/json' }, inputs: { orderId: '31' } });

    const echoed = await call('test_data_step', {
      url: `${sandbox.url}/__sandbox/mock/echo`,
      method: 'POST',
      headers: { Authorization: `Bearer ${SECRET_PLAIN}` },
      body: { token: { hide: true, value: SECRET_WRAPPED }, copy: `x-${SECRET_PLAIN}` },
    });
    expect(echoed.isError).toBeFalsy();
    // the mock echoes the body back: the tool masks what the user passed in
    expect(JSON.stringify(apiRequests(sandbox)[2].body)).toContain(SECRET_WRAPPED);
    expect(JSON.stringify(echoed)).not.toContain(SECRET_WRAPPED);
    expect(JSON.stringify(echoed)).not.toContain(SECRET_PLAIN);
    expect(JSON.stringify(added)).not.toContain(SECRET_WRAPPED);
    expect(JSON.stringify(added)).not.toContain(SECRET_PLAIN);

    const run = structured(await call('test_action', { toolId, inputs: { orderId: '31' } }));
    expect(JSON.stringify(run)).not.toContain(MOCK_STORE_TOKEN);
    expect(run.steps[0].request.headers.Authorization).toEqual(masked);
  });

  it('add_data_step: masks a secret the API quotes back in an error message', async () => {
    sandbox.injectFaults([{ path: '/v2/api-function-configs/public', status: 400, body: { statusCode: 400, message: [`header X-Api-Key "${SECRET_PLAIN}" is not allowed`], error: 'Bad Request' } }]);
    const refused = await call('add_data_step', { toolId: sandbox.seed.tools.orderStatus, url: 'http://127.0.0.1:1/x', headers: { 'X-Api-Key': SECRET_PLAIN } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('header X-Api-Key "********" is not allowed');
    expect(JSON.stringify(refused)).not.toContain(SECRET_PLAIN);
  });
});

describe('errors explained', () => {
  it('explains 404s, the business-rule 400 and the unknown tag group 500', async () => {
    const replay = await call('get_replay', { replayId: seedId('replay', 'a', 77) });
    expect(replay.isError).toBe(true);
    expect(textOf(replay)).toContain('Not found (404)');
    expect(textOf(replay)).toContain('get_refine_session');
    const otherRule = await call('get_rule_version', { ruleId: sandbox.seed.rules.whereIsMyOrder, versionId: 'v9' });
    expect(textOf(otherRule)).toContain('belongs to another rule (list_rule_versions');
    const business = await call('list_rule_versions', { ruleId: sandbox.seed.rules.refundApproval });
    expect(textOf(business)).toContain('(400): the rule is a business rule');
    const tag = await call('create_tag', { tagGroupId: seedId('tagGroup', 'a', 77), tagName: 'x' });
    expect(textOf(tag)).toContain('probably unknown');
    const tool = await call('test_action', { toolId: seedId('tool', 'a', 77) });
    expect(textOf(tool)).toContain('list_actions');
    const refine = await call('get_refine_session', { interactionId: conv(2), eventId: `e0000000-000a-4000-8002-000000000001` });
    expect(textOf(refine)).toContain('must be an agent (svcbot) answer');
  });

  it('get_refine_session, wait_for_refine_session: explain a null refine session in a normal result', async () => {
    const result = await call('get_refine_session', { interactionId: conv(3), eventId: botEvent(3) });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ active: false });
    expect(textOf(result)).toContain('No active refine session');
    const waited = structured(await call('wait_for_refine_session', { interactionId: conv(3), eventId: botEvent(3) }));
    expect(waited).toMatchObject({ finished: true, active: false });
  });

  it('list_actions: classifies records without alwaysGet as unknown under every filter', async () => {
    const body = [
      { id: 'a1', name: 'Legacy', fields: [] },
      { id: 'a2', name: 'Attr', alwaysGet: true, fields: [] },
    ];
    sandbox.injectFaults([{ path: '/v2/hc-tools/public', method: 'GET', status: 200, body, times: 2 }]);
    const attributes = structured(await call('list_actions', { kind: 'attributes' }));
    expect(attributes.actions.map((item: { id: string; kind: string }) => [item.id, item.kind])).toEqual([
      ['a1', 'unknown'],
      ['a2', 'attribute'],
    ]);
    expect(attributes.note).toContain('without alwaysGet');
    const actions = structured(await call('list_actions', { kind: 'actions' }));
    expect(actions.actions.map((item: { id: string }) => item.id)).toEqual(['a1']);
  });
});

describe('wait_for_refine_session', () => {
  it('ends on each terminal status after polling intermediate ones, with progress', async () => {
    const outcomes = { ready: 4, no_change: 7, failed: 9 } as const;
    await Promise.all(Object.entries(outcomes).map(([outcome, n]) => startRefine(n, outcome)));
    const runs = await Promise.all(
      Object.entries(outcomes).map(async ([outcome, n]) => {
        const progress: Array<{ progress: number; message?: string }> = [];
        const result = await call(
          'wait_for_refine_session',
          { interactionId: conv(n), eventId: botEvent(n) },
          {
            onprogress: (update) => progress.push(update),
          },
        );
        return { outcome, result, progress };
      }),
    );
    for (const { outcome, result, progress } of runs) {
      const summary = structured(result);
      expect(summary).toMatchObject({ finished: true, status: outcome, iterationNumber: 1 });
      expect(summary.polls).toBeGreaterThanOrEqual(3);
      const messages = progress.map((update) => update.message ?? '');
      // The SDK client handles notifications a microtask after responses, so the terminal notification may race the result.
      expect(messages.length).toBeGreaterThanOrEqual(2);
      expect(messages[0]).toContain('queued');
      expect(messages.slice(1).some((message) => /generating_changes|replaying/.test(message))).toBe(true);
      expect(messages.every((message) => new RegExp(`queued|generating_changes|replaying|${outcome}`).test(message))).toBe(true);
      const values = progress.map((update) => update.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      if (outcome === 'ready') {
        expect(summary.rootCause).toMatchObject({ failureStage: expect.any(String), target: { kind: expect.any(String) } });
        expect(summary.changes[0]).toMatchObject({ changeType: expect.stringMatching(/update_article|update_prompt/) });
        expect(summary.confidence).toBe('medium');
        expect(textOf(result)).toContain('untrusted-data');
      }
      if (outcome === 'failed') expect(summary.error).toEqual(expect.any(String));
      if (outcome === 'no_change') expect(summary.changes).toBeUndefined();
    }
  }, 20_000);

  it('runs as an MCP task', async () => {
    await startRefine(10, 'ready');
    const { kinds, result: final } = await callAsTask(server.client, 'wait_for_refine_session', { interactionId: conv(10), eventId: botEvent(10) });
    expect(kinds[0]).toBe('taskCreated');
    expect(final?.isError).toBeFalsy();
    expect(final?.structuredContent).toMatchObject({ finished: true, status: 'ready', iterationNumber: 1 });
    const polls = apiRequests(sandbox).filter((request) => request.path.includes(conv(10)));
    expect(polls.length).toBeGreaterThanOrEqual(2);
  }, 20_000);

  it('times out saying the last status seen', async () => {
    await startRefine(14, 'ready', 60_000);
    const result = await call('wait_for_refine_session', { interactionId: conv(14), eventId: botEvent(14), timeoutSeconds: 1 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ finished: false, status: 'timed_out', lastStatus: 'queued', iterationNumber: 1 });
    expect(textOf(result).split('\n')[0]).toMatch(/^INCOMPLETE: Still running after [\d.]+s; last status seen: queued \(iteration 1\)\. Call wait_for_refine_session again/);
  }, 10_000);

  it('stops polling when the call is cancelled', async () => {
    await startRefine(16, 'ready', 60_000);
    const polls = () => apiRequests(sandbox).filter((request) => request.path.includes(conv(16))).length;
    const ended = callsEnded(server, 'wait_for_refine_session');
    const controller = new AbortController();
    const pending = call('wait_for_refine_session', { interactionId: conv(16), eventId: botEvent(16) }, { signal: controller.signal });
    await waitFor(() => polls() >= 1, 'the first poll');
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The poll loop has returned: nothing more can be sent for this call.
    await waitFor(() => callsEnded(server, 'wait_for_refine_session') > ended, 'the cancelled wait to end');
    expect(polls()).toBe(1);
  });
});

describe('confirmation under SVC_CONFIRM=destructive', () => {
  it('start_test_set_run, test_data_step, create_tag: previews outbound tools (execute runs, data step tests) without sending, showing every value but the API key; plain writes go straight through', async () => {
    const preview = await guarded.call('start_test_set_run', { testSetId: sandbox.seed.testSet, ruleExecutionMode: 'execute' });
    expect(preview.isError).toBeFalsy();
    expect(textOf(preview)).toContain('nothing was sent');
    expect(textOf(preview)).toContain(`POST /v2/test-sets/${sandbox.seed.testSet}/runs/public`);
    expect(textOf(preview)).toContain('"ruleExecutionMode": "execute"');
    const secretPreview = await guarded.call('test_data_step', {
      url: `${sandbox.url}/__sandbox/mock/echo`,
      headers: { Authorization: `Bearer ${SECRET_PLAIN}`, 'X-Key': { hide: true, value: SECRET_WRAPPED } },
    });
    expect(textOf(secretPreview)).toContain('nothing was sent');
    expect(textOf(secretPreview)).toContain(`"Authorization": "Bearer ${SECRET_PLAIN}"`);
    expect(textOf(secretPreview)).toContain(`"value": "${SECRET_WRAPPED}"`);
    expect(JSON.stringify(secretPreview)).not.toContain(sandbox.keys.admin);
    expect(apiRequests(sandbox)).toHaveLength(0);

    const { confirmToken } = preview.structuredContent as { confirmToken: string };
    const sent = await guarded.call('start_test_set_run', { testSetId: sandbox.seed.testSet, ruleExecutionMode: 'execute', confirm: confirmToken });
    expect(sent.structuredContent).toMatchObject({ status: 'running' });
    const tag = await guarded.call('create_tag', { tagGroupId: sandbox.seed.tagGroups.topics, tagName: 'no-confirm-needed' });
    expect(tag.structuredContent).toMatchObject({ tagName: 'no-confirm-needed' });
    expect(apiRequests(sandbox).map((request) => request.body)).toEqual([{ ruleExecutionMode: 'execute' }, { tagName: 'no-confirm-needed' }]);
    const { tools } = await guarded.client.listTools();
    const confirmable = tools.filter((tool) => NAMES.includes(tool.name) && 'confirm' in ((tool.inputSchema.properties ?? {}) as object)).map((tool) => tool.name);
    expect(confirmable.sort()).toEqual(['start_test_set_run', 'test_action', 'test_data_step']);
  });
});

describe('resources and prompts', () => {
  it('serves actions, rule versions, a replay and a refine session as resources', async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text('svc://actions')).toContain('Customer tier');
    expect(await text(`svc://rules/${sandbox.seed.rules.whereIsMyOrder}/versions`)).toContain('PUBLISHED');
    expect(await text(`svc://rules/${sandbox.seed.rules.whereIsMyOrder}/versions/v1`)).toContain('flowConfig');
    expect(await text(`svc://replays/${sandbox.seed.replay}`)).toContain(sandbox.seed.negativeConversation);
    expect(await text(`svc://refine/${sandbox.seed.negativeConversation}/${sandbox.seed.negativeEvent}`)).toContain('draftReview');
    const templates = (await server.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
    expect(templates).toEqual(
      expect.arrayContaining(['svc://rules/{ruleId}/versions', 'svc://rules/{ruleId}/versions/{versionId}', 'svc://replays/{replayId}', 'svc://refine/{interactionId}/{eventId}']),
    );
  });

  it('offers the setup_attribute and review_refine_session prompts', async () => {
    const names = (await server.client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(names).toEqual(expect.arrayContaining(['setup_attribute', 'review_refine_session']));
    const setup = await server.client.getPrompt({ name: 'setup_attribute', arguments: { purpose: 'the order status' } });
    const text = JSON.stringify(setup.messages);
    for (const tool of ['create_action', 'update_action', 'add_data_step', 'assign_action_to_agents', 'test_action']) expect(text).toContain(tool);
    const review = await server.client.getPrompt({ name: 'review_refine_session', arguments: { interactionId: 'c1', eventId: 'e1' } });
    expect(JSON.stringify(review.messages)).toContain('wait_for_refine_session');
  });
});

describe('secrets never leave', () => {
  it('shows no secret in any result or log line, and no API key in a preview either', () => {
    const everything = results.join('\n') + server.stderr() + (guarded?.stderr() ?? '');
    expect(server.stderr()).toContain('tool call');
    for (const secret of [SECRET_WRAPPED, SECRET_PLAIN, MOCK_STORE_TOKEN, ...Object.values(sandbox.keys)]) expect(everything).not.toContain(secret);
    for (const key of [MOCK_STORE_TOKEN, ...Object.values(sandbox.keys)]) expect(previews.join('\n')).not.toContain(key);
  });
});

describe('input properties (fast-check, in process)', () => {
  const tool = (name: string) => ownTools.get(name)!;
  const uuid = fc.uuid();

  it('add_cases_to_criteria_group: accepts every list of 0-200 unique UUIDs and sends it unchanged', () => {
    fc.assert(
      fc.property(fc.uniqueArray(uuid, { minLength: 0, maxLength: 200, selector: (id) => id.toLowerCase() }), (caseIds) => {
        const parsed = validateInput(tool('add_cases_to_criteria_group'), { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds }, {});
        if (!parsed.ok) return false;
        return JSON.stringify(buildRequest(tool('add_cases_to_criteria_group'), parsed.value).body) === JSON.stringify({ caseIds });
      }),
      { numRuns: 60 },
    );
  });

  it('add_cases_to_criteria_group: names the index of any duplicate', () => {
    fc.assert(
      fc.property(fc.uniqueArray(uuid, { minLength: 1, maxLength: 50 }), fc.nat(), fc.nat(), (ids, pick, at) => {
        const duplicate = ids[pick % ids.length];
        const caseIds = [...ids];
        const position = at % (ids.length + 1);
        caseIds.splice(position, 0, duplicate);
        const parsed = validateInput(tool('add_cases_to_criteria_group'), { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds }, {});
        const firstIndex = caseIds.indexOf(duplicate);
        const secondIndex = caseIds.indexOf(duplicate, firstIndex + 1);
        return !parsed.ok && parsed.message.includes(`caseIds[${secondIndex}]: duplicates caseIds[${firstIndex}]`);
      }),
      { numRuns: 60 },
    );
  });

  it('add_cases_to_criteria_group: refuses any non-UUID entry by index, and more than 200 ids', () => {
    fc.assert(
      fc.property(
        fc.array(uuid, { maxLength: 20 }),
        fc.string().filter((text) => !/^[0-9a-f-]{36}$/i.test(text)),
        fc.nat(),
        (ids, bad, at) => {
          const caseIds = [...ids];
          const position = at % (ids.length + 1);
          caseIds.splice(position, 0, bad);
          const parsed = validateInput(tool('add_cases_to_criteria_group'), { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds }, {});
          return !parsed.ok && parsed.message.includes(`caseIds[${position}]: must be a UUID`);
        },
      ),
      { numRuns: 60 },
    );
    const many = Array.from({ length: 201 }, (_, i) => seedId('testCase', 'a', i + 1));
    expect(validateInput(tool('add_cases_to_criteria_group'), { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: many }, {}).ok).toBe(false);
  });

  const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);
  const literal = fc.stringMatching(/^[a-z0-9/._-]{0,12}$/);
  const template = fc.oneof(
    name.map((field) => `\${${field}}`),
    fc.tuple(uuid, name).map(([step, key]) => `\${${step}.${key}}`),
  );

  it('add_data_step, test_data_step: send any URL made of literals and ${} templates unchanged', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(literal, template), { minLength: 1, maxLength: 6 }), (parts) => {
        const url = `https://api.example.com/${parts.join('/')}`;
        for (const toolName of ['add_data_step', 'test_data_step']) {
          const parsed = validateInput(tool(toolName), { toolId: 't', url }, {});
          if (!parsed.ok) return false;
          if ((buildRequest(tool(toolName), parsed.value).body as { url: string }).url !== url) return false;
        }
        return true;
      }),
      { numRuns: 100 },
    );
  });

  it('add_data_step: refuses any URL with a {{placeholder}}', () => {
    fc.assert(
      fc.property(literal, name, literal, (before, field, after) => {
        const parsed = validateInput(tool('add_data_step'), { toolId: 't', url: `https://api.example.com/${before}{{${field}}}${after}` }, {});
        return !parsed.ok && parsed.message.includes('url: uses {{placeholder}} syntax');
      }),
      { numRuns: 100 },
    );
  });

  it('add_data_step: keeps masked values byte for byte in the request body', () => {
    fc.assert(
      // Prototype names (constructor, prototype) are refused as field names everywhere.
      fc.property(
        fc.dictionary(
          fc.stringMatching(/^[A-Za-z-]{1,12}$/).filter((name) => !['constructor', 'prototype'].includes(name)),
          fc.oneof(fc.string(), fc.constant({ hide: true, value: '********' }), fc.record({ hide: fc.boolean(), value: fc.string() })),
        ),
        (headers) => {
          const parsed = validateInput(tool('add_data_step'), { toolId: 't', url: 'https://x.example/${id}', headers }, {});
          if (!parsed.ok) return false;
          return JSON.stringify((buildRequest(tool('add_data_step'), parsed.value).body as { headers: unknown }).headers) === JSON.stringify(headers);
        },
      ),
      { numRuns: 100 },
    );
  });
});
