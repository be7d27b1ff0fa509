import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { MOCK_STORE_TOKEN } from '../../src/sandbox/mock.js';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const STEP_MS = 60_000;
const RUN_MS = 60_000;
/** The sandbox's clock runs this far ahead of real time: a test moves it on instead of sleeping. */
let skew = 0;
const advance = (ms: number) => {
  skew += ms;
};
const sb = useSandbox(() => start({ refineTimings: { stepMs: STEP_MS }, testRunTimings: { runMs: RUN_MS }, now: () => Date.now() + skew }));

const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(sb.url + path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

describe('actions and attributes', () => {
  it('lists compact records newest first as a top-level array, with alwaysGet', async () => {
    const { status, body } = await call(sb, 'GET', '/v2/hc-tools/public');
    expect(status).toBe(200);
    expect(Array.isArray(body)).toBe(true);
    expect(body.map((t: { id: string }) => t.id)).toEqual([sb.seed.tools.customerTier, sb.seed.tools.returnLabel, sb.seed.tools.orderStatus]);
    expect(Object.keys(body[0]).sort()).toEqual(['alwaysGet', 'botIds', 'createdAt', 'description', 'fields', 'id', 'name', 'source', 'updatedAt']);
    expect(body[0].fields[0]).toEqual({ name: 'tier', type: 'string', visibleToAi: true, useInRulebooks: true });
    expect(body[0].botIds).toHaveLength(2);
    expect(body.filter((t: { alwaysGet: boolean }) => t.alwaysGet).map((t: { name: string }) => t.name)).toEqual(['Customer tier']);
  });

  it('creates a record, patches its schemas and validates field types and sources', async () => {
    const created = await call(sb, 'POST', '/v2/hc-tools/public', { body: { name: 'Order status', alwaysGet: true, description: 'latest order' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Order status', alwaysGet: true, inputSchema: [], outputSchema: [], builtInHandler: null });
    const id = created.body.id;
    const list = await call(sb, 'GET', '/v2/hc-tools/public');
    expect(list.body[0].id).toBe(id);

    const patched = await call(sb, 'PATCH', `/v2/hc-tools/${id}/public`, {
      body: {
        inputSchema: [{ name: 'orderId', type: 'string', required: true, source: 'metadata', path: 'order_id' }],
        outputSchema: [{ name: 'status', type: 'string', path: 'step.status', sendToLlm: true, source: 'apiResponse' }],
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.inputSchema[0]).toMatchObject({ name: 'orderId', required: true, source: 'metadata' });
    expect(patched.body.outputSchema[0]).toMatchObject({ path: 'step.status', source: 'apiResponse' });

    const bad = await call(sb, 'PATCH', `/v2/hc-tools/${id}/public`, {
      body: { inputSchema: [{ name: 'x', type: 'uuid', source: 'cookie' }], outputSchema: [{ name: 'y', type: 'string', source: 'apiResponse' }] },
    }); // an output field with source apiResponse still needs its path
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(
      expect.arrayContaining([expect.stringContaining('inputSchema.0.type must be one of'), expect.stringContaining('inputSchema.0.source must be one of'), 'outputSchema.0.path should not be empty']),
    );
    expect((await call(sb, 'POST', '/v2/hc-tools/public', { body: { alwaysGet: true } })).status).toBe(400);
    expect((await call(sb, 'PATCH', `/v2/hc-tools/${seedId('tool', 'a', 99)}/public`, { body: {} })).status).toBe(404);
    expect((await call(sb, 'PATCH', '/v2/hc-tools/not-a-uuid/public', { body: {} })).status).toBe(400);
    expect((await call(sb, 'PATCH', `/v2/hc-tools/${sb.seed.tools.orderStatus}/public`, { key: sb.keys.otherWorkspace, body: {} })).status).toBe(403);
  });

  it('adds data steps with masked values, rejects {{placeholder}} urls, and updates by id keeping secrets', async () => {
    const tool = (await call(sb, 'POST', '/v2/hc-tools/public', { body: { name: 'Step host', alwaysGet: false } })).body;
    const bad = await call(sb, 'POST', '/v2/api-function-configs/public', { body: { toolId: tool.id, stepNumber: 1, url: `${sb.url}/__sandbox/mock/orders/{{orderId}}` } });
    expect(bad.status).toBe(400);
    expect(bad.body.message[0]).toContain('{{placeholder}}');
    const created = await call(sb, 'POST', '/v2/api-function-configs/public', {
      body: {
        toolId: tool.id,
        stepNumber: 1,
        url: `${sb.url}/__sandbox/mock/orders/\${orderId}`,
        method: 'GET',
        headers: { Authorization: { hide: true, value: MOCK_STORE_TOKEN }, Accept: 'application/json' },
        responseMapping: { status: 'status', whole: '.', eta: { path: 'estimatedDelivery', dataType: 'date' } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.url).toContain('${orderId}');
    expect(created.body.headers).toEqual({ Authorization: { hide: true, value: '********' }, Accept: { hide: false, value: 'application/json' } });
    expect(JSON.stringify(created.body)).not.toContain('nw_live');

    const updated = await call(sb, 'POST', '/v2/api-function-configs/public', {
      body: { id: created.body.id, headers: { Authorization: { hide: true, value: '********' }, Accept: 'text/plain' } },
    });
    expect(updated.status).toBe(200);
    expect(sb.state.workspaces.get(sb.seed.workspaceA)!.dataSteps.get(created.body.id)!.headers!.Authorization).toEqual({ hide: true, value: MOCK_STORE_TOKEN });
    const replaced = await call(sb, 'POST', '/v2/api-function-configs/public', { body: { id: created.body.id, headers: { Authorization: 'Bearer new-value' } } });
    expect(replaced.body.headers.Authorization).toEqual({ hide: true, value: '********' });
    expect(sb.state.workspaces.get(sb.seed.workspaceA)!.dataSteps.get(created.body.id)!.headers!.Authorization).toEqual({ hide: true, value: 'Bearer new-value' });
    const noStored = await call(sb, 'POST', '/v2/api-function-configs/public', { body: { id: created.body.id, headers: { 'X-New': { hide: true, value: '********' } } } });
    expect(noStored.status).toBe(400);
    expect((await call(sb, 'POST', '/v2/api-function-configs/public', { body: { toolId: seedId('tool', 'a', 98), url: 'http://127.0.0.1/x' } })).status).toBe(404);
    expect((await call(sb, 'POST', '/v2/api-function-configs/public', { body: { toolId: tool.id, url: 'http://127.0.0.1/x', method: 'FETCH' } })).status).toBe(400);
  });

  it('test-runs the chain in stepNumber order, feeding ${stepId.key} forward, with masking and outputs', async () => {
    const tool = (await call(sb, 'POST', '/v2/hc-tools/public', { body: { name: 'Two steps', alwaysGet: true } })).body;
    // created out of order: step 2 first
    const second = (
      await call(sb, 'POST', '/v2/api-function-configs/public', {
        body: {
          toolId: tool.id,
          stepNumber: 2,
          url: `${sb.url}/__sandbox/mock/echo`,
          method: 'POST',
          body: { orderStatus: { hide: false, value: '${STEP1.status}' }, count: '${qty}' },
          responseMapping: { echoed: 'body.orderStatus', count: 'body.count' },
        },
      })
    ).body;
    const first = (
      await call(sb, 'POST', '/v2/api-function-configs/public', {
        body: {
          toolId: tool.id,
          stepNumber: 1,
          url: `${sb.url}/__sandbox/mock/orders/\${orderId}`,
          headers: { Authorization: { hide: true, value: MOCK_STORE_TOKEN } },
          responseMapping: { status: 'status', tracking: 'trackingNumber' },
        },
      })
    ).body;
    // point step 2 at step 1 by its real id
    await call(sb, 'POST', '/v2/api-function-configs/public', { body: { id: second.id, body: { orderStatus: `\${${first.id}.status}`, count: '${qty}' } } });
    await call(sb, 'PATCH', `/v2/hc-tools/${tool.id}/public`, {
      body: {
        inputSchema: [
          { name: 'orderId', type: 'string', required: true },
          { name: 'qty', type: 'number', required: false, defaultValue: 3 },
        ],
        outputSchema: [
          { name: 'status', type: 'string', path: `${first.id}.status`, sendToLlm: true, source: 'apiResponse' },
          { name: 'echoed', type: 'string', path: 'echoed', sendToLlm: false, source: 'apiResponse' },
        ],
      },
    });
    const run = await call(sb, 'POST', `/v2/hc-tools/${tool.id}/test-run/public`, { body: { inputs: { orderId: 'A 1/2' } } });
    expect(run.status).toBe(200);
    expect(run.body.success).toBe(true);
    expect(run.body.steps.map((s: { stepId: string }) => s.stepId)).toEqual([first.id, second.id]);
    expect(run.body.steps[0].request.url).toBe(`${sb.url}/__sandbox/mock/orders/A%201%2F2`);
    expect(run.body.steps[0].request.headers.Authorization).toEqual({ hide: true, value: '********' });
    expect(run.body.steps[0].data.tracking).toMatch(/^1Z/);
    expect(run.body.steps[1].data).toEqual({ echoed: run.body.steps[0].data.status, count: 3 });
    expect(run.body.output).toEqual({ status: run.body.steps[0].data.status, echoed: run.body.steps[0].data.status });
    expect(run.body.sendToLlm).toEqual({ status: true, echoed: false });
    expect(JSON.stringify(run.body)).not.toContain('nw_live');

    const missing = await call(sb, 'POST', `/v2/hc-tools/${tool.id}/test-run/public`, { body: { inputs: {} } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('inputs.orderId should not be empty');
    const failing = await call(sb, 'POST', `/v2/hc-tools/${tool.id}/test-run/public`, { body: { inputs: { orderId: 'missing' } } });
    expect(failing.body.success).toBe(false);
    expect(failing.body.steps[0]).toMatchObject({ success: false, status: 404, error: 'the call answered HTTP 404' });
    expect(failing.body.steps[1]).toMatchObject({ skipped: true });
  });

  it('never calls a non-loopback URL; the step fails with a clear error', async () => {
    const result = await call(sb, 'POST', '/v2/api-function-configs/test-run/public', { body: { url: 'https://api.example.com/orders/${orderId}', inputs: { orderId: '1' } } });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ success: false, status: null });
    expect(result.body.error).toContain('api.example.com was not called');
    const unresolved = await call(sb, 'POST', '/v2/api-function-configs/test-run/public', { body: { url: `${sb.url}/__sandbox/mock/orders/\${nope}` } });
    expect(unresolved.body.error).toContain('unresolved template ${nope}');
  });

  it('tests one stored step: the masked secret is used, a wrong one is not', async () => {
    const step = sb.seed.dataSteps.orderStatusLookup;
    const kept = await call(sb, 'POST', '/v2/api-function-configs/test-run/public', { body: { id: step, headers: { Authorization: { hide: true, value: '********' } }, inputs: { orderId: '77' } } });
    expect(kept.body).toMatchObject({ success: true, status: 200, response: { orderId: '77', authenticated: true } });
    const wrong = await call(sb, 'POST', '/v2/api-function-configs/test-run/public', { body: { id: step, headers: { Authorization: 'Bearer wrong' }, inputs: { orderId: '77' } } });
    expect(wrong.body).toMatchObject({ success: false, status: 401 });
    const direct = await call(sb, 'POST', '/v2/api-function-configs/test-run/public', {
      body: { url: `${sb.url}/__sandbox/mock/orders/\${id}`, inputs: { id: '5' }, responseMapping: { s: 'status' } },
    });
    expect(direct.body).toMatchObject({ success: true, status: 200, response: { orderId: '5', authenticated: false } });
    expect((await call(sb, 'POST', '/v2/api-function-configs/test-run/public', { body: { url: `${sb.url}/x`, headers: { A: { hide: true, value: '********' } } } })).status).toBe(400);
  });

  it('assigns to agents with channels and reports assignments in the list', async () => {
    const tool = (await call(sb, 'POST', '/v2/hc-tools/public', { body: { name: 'Assign me', alwaysGet: true } })).body;
    const res = await call(sb, 'POST', '/v2/hc-tools/junctions/public', { body: { toolId: tool.id, botIds: [sb.seed.bots.storeAssistant, sb.seed.bots.emailSupport] } });
    expect(res.status).toBe(201);
    expect(res.body.map((a: { channels: string[] }) => a.channels)).toEqual([['chat'], ['email']]);
    expect(Object.keys(res.body[0]).sort()).toEqual(['botId', 'channels', 'companyId', 'createdAt', 'id', 'toolId']);
    const again = await call(sb, 'POST', '/v2/hc-tools/junctions/public', { body: { toolId: tool.id, botIds: [sb.seed.bots.storeAssistant], channels: ['chat', 'email'] } });
    expect(again.body[0]).toMatchObject({ id: res.body[0].id, channels: ['chat', 'email'] });
    const listed = (await call(sb, 'GET', '/v2/hc-tools/public')).body.find((t: { id: string }) => t.id === tool.id);
    expect(listed.botIds).toHaveLength(2);
    expect((await call(sb, 'POST', '/v2/hc-tools/junctions/public', { body: { toolId: tool.id, botIds: [] } })).status).toBe(400);
    expect((await call(sb, 'POST', '/v2/hc-tools/junctions/public', { body: { toolId: tool.id, botIds: [sb.seed.bots.globexHelpdesk] } })).status).toBe(403);
  });
});

describe('intent rule versions', () => {
  const rule = () => sb.seed.rules.whereIsMyOrder;
  it('lists history without flowConfig, newest first, with the active published version', async () => {
    const { status, body } = await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions/public`);
    expect(status).toBe(200);
    expect(body.ruleId).toBe(rule());
    expect(body.activeVersionId).toBe('v2');
    expect(body.versions.map((v: { versionId: string }) => v.versionId)).toEqual(['v3', 'v2', 'v1']);
    expect(body.versions.filter((v: { item: { status: string } }) => v.item.status === 'PUBLISHED')).toHaveLength(1);
    for (const v of body.versions) expect(v.item).not.toHaveProperty('flowConfig');
  });
  it('reads one version with its flowConfig, as an array', async () => {
    const { status, body } = await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions/v3/public`);
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ versionId: 'v3', version: 3, item: { status: 'DRAFT', flowConfig: { type: 'message' } } });
  });
  it("answers 400 for business rules and empty parameters, 404 for absent rules and other rules' versions", async () => {
    expect((await call(sb, 'GET', `/v2/hc-rules/${sb.seed.rules.refundApproval}/versions/public`)).status).toBe(400);
    expect((await call(sb, 'GET', `/v2/hc-rules/${sb.seed.rules.refundApproval}/versions/v1/public`)).status).toBe(400);
    expect((await call(sb, 'GET', '/v2/hc-rules//versions/public')).status).toBe(400);
    expect((await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions//public`)).status).toBe(400);
    expect((await call(sb, 'GET', `/v2/hc-rules/${seedId('rule', 'a', 9)}/versions/public`)).status).toBe(404);
    expect((await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions/v9/public`)).status).toBe(404);
    expect((await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions/v1/public`, { key: sb.keys.readOnly })).status).toBe(200);
  });
});

describe('replays', () => {
  it('reads a replay and 404s an absent one', async () => {
    const { status, body } = await call(sb, 'GET', `/v2/replays/${sb.seed.replay}/public`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ source: 'replay', parentInteractionId: sb.seed.negativeConversation, replay: { target_event_id: sb.seed.negativeEvent, status: 'done' } });
    expect((await call(sb, 'GET', `/v2/replays/${seedId('replay', 'a', 5)}/public`)).status).toBe(404);
  });
});

describe('refine sessions', () => {
  const path = (c: string, e: string) => `/v2/fix-review/interactions/${c}/events/${e}/session/public`;
  const conv = (n: number) => seedId('conversation', 'a', n);
  const ev = (n: number, k: number) => `e0000000-000a-4000-8${String(n).padStart(3, '0')}-${String(k).padStart(12, '0')}`;

  it('reads the seeded active session with latestIteration = iterations[0]', async () => {
    const { status, body } = await call(sb, 'GET', path(sb.seed.negativeConversation, sb.seed.negativeEvent));
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'active', targetUserEventId: sb.seed.negativeUserEvent });
    expect(body.latestIteration).toEqual(body.iterations[0]);
  });

  it('returns JSON null when the answer has no active session', async () => {
    const res = await fetch(sb.url + path(conv(2), ev(2, 2)), { headers: { authorization: `Bearer ${sb.keys.admin}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('null');
  });

  it('rejects events outside the conversation, not svcbot, or without a linked user event (400), and absent ones (404)', async () => {
    expect((await call(sb, 'GET', path(conv(2), ev(3, 2)))).status).toBe(400);
    expect((await call(sb, 'GET', path(conv(2), ev(2, 1)))).status).toBe(400);
    const lone = await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: { botId: sb.seed.bots.storeAssistant, role: 'svcbot', content: 'Hello from the agent' } });
    expect((await call(sb, 'GET', path(lone.body[0].interactionId, lone.body[0].id))).body.message).toEqual(['Event has no linked user event']);
    expect((await call(sb, 'GET', path(seedId('conversation', 'a', 999), ev(2, 2)))).status).toBe(404);
    expect((await call(sb, 'GET', path(conv(2), ev(2, 99)))).status).toBe(404);
    expect((await call(sb, 'GET', path(sb.seed.globexConversation, 'x'))).status).toBe(403);
  });

  it.each(['ready', 'no_change', 'failed'] as const)('moves a new iteration through queued, generating_changes, replaying to %s', async (outcome) => {
    const n = { ready: 4, no_change: 7, failed: 9 }[outcome];
    const started = await control('POST', '/__sandbox/refine', { interactionId: conv(n), eventId: ev(n, 2), outcome });
    expect(started.status).toBe(201);
    expect(started.body.latestIteration).toMatchObject({ status: 'queued', iterationNumber: 1, changes: [] });
    const seen: string[] = [];
    for (let i = 0; i < 40 && !['ready', 'no_change', 'failed'].includes(seen.at(-1) ?? ''); i++) {
      const { body } = await call(sb, 'GET', path(conv(n), ev(n, 2)));
      if (seen.at(-1) !== body.latestIteration.status) seen.push(body.latestIteration.status);
      advance(STEP_MS);
    }
    expect(seen).toEqual(['queued', 'generating_changes', 'replaying', outcome]);
    const { body } = await call(sb, 'GET', path(conv(n), ev(n, 2)));
    const it = body.latestIteration;
    if (outcome === 'ready') {
      expect(it.changes).toHaveLength(1);
      expect(it.changes[0].rootCause).toMatchObject({ failureStage: expect.any(String), target: { kind: expect.any(String) } });
      expect(it.confidence).toBe('medium');
      expect((await call(sb, 'GET', `/v2/replays/${it.replayInteractionId}/public`)).status).toBe(200);
    } else if (outcome === 'no_change') {
      expect(it).toMatchObject({ changes: [], confidence: 'low', error: null });
    } else {
      expect(it.error).toEqual(expect.any(String));
    }
    expect(it.completedAt).toEqual(expect.any(String));
  });

  it('a second start adds an iteration and supersedes the previous one', async () => {
    const again = await control('POST', '/__sandbox/refine', { interactionId: conv(4), eventId: ev(4, 2), outcome: 'no_change' });
    expect(again.body.iterations.map((i: { iterationNumber: number; status: string }) => [i.iterationNumber, i.status])).toEqual([
      [2, 'queued'],
      [1, 'superseded'],
    ]);
    expect(again.body.latestIteration.previousIterationId).toBe(again.body.iterations[1].id);
    expect((await control('POST', '/__sandbox/refine', { interactionId: conv(2), eventId: ev(2, 1) })).status).toBe(400);
  });
});

describe('criteria groups', () => {
  const group = () => sb.seed.criteriaGroup;
  const post = (caseIds: unknown, id = group()) => call(sb, 'POST', `/v2/test-suite/criteria-groups/${id}/cases/public`, { body: { caseIds } });

  it('attaches cases and returns the group detail', async () => {
    const res = await post([sb.seed.testCases[2]]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: group(), caseCount: 3, revision: 4 });
    expect(res.body.linkedCases.map((c: { id: string }) => c.id)).toContain(sb.seed.testCases[2]);
    expect(Object.keys(res.body).sort()).toEqual(['botId', 'caseCount', 'companyId', 'createdAt', 'criteria', 'id', 'impactToken', 'linkedCases', 'name', 'revision', 'updatedAt']);
    const same = await post([sb.seed.testCases[2]]);
    expect(same.body.revision).toBe(4);
  });

  it('rejects missing, over 200, non-UUID and duplicate caseIds (400)', async () => {
    expect((await post(undefined)).status).toBe(400);
    const many = Array.from({ length: 201 }, (_, i) => seedId('testCase', 'a', 100 + i));
    expect((await post(many)).body.message).toContain('caseIds must contain no more than 200 elements');
    expect((await post(['nope'])).body.message).toContain('each value in caseIds must be a UUID');
    expect((await post([sb.seed.testCases[0], sb.seed.testCases[0]])).body.message).toContain("All caseIds's elements must be unique");
    expect((await post([sb.seed.testCases[0]], 'not-a-uuid')).status).toBe(400);
    expect((await post([sb.seed.testCases[0]], seedId('criteriaGroup', 'a', 9))).status).toBe(404);
    expect((await post([seedId('testCase', 'a', 77)])).status).toBe(400);
  });

  it('enforces the same-agent rule and at most 50 effective criteria per case (400)', async () => {
    const ws = sb.state.workspaces.get(sb.seed.workspaceA)!;
    const now = new Date().toISOString();
    const other = seedId('testCase', 'a', 50);
    ws.testCases.set(other, {
      id: other,
      companyId: ws.id,
      botId: sb.seed.bots.emailSupport,
      name: 'Email case',
      sourceInteractionId: null,
      criteria: [],
      groupIds: [],
      createdAt: now,
      updatedAt: now,
    });
    const sameAgent = await post([other]);
    expect(sameAgent.status).toBe(400);
    expect(sameAgent.body.message[0]).toContain('belongs to another agent');

    const big = seedId('criteriaGroup', 'a', 2);
    const base = ws.criteriaGroups.get(group())!;
    ws.criteriaGroups.set(big, { ...structuredClone(base), id: big, criteria: Array.from({ length: 48 }, () => base.criteria[0]) });
    // case 0 is linked to the seeded group (2 criteria): 2 + 48 = 50 is allowed
    expect((await post([sb.seed.testCases[0]], big)).status).toBe(200);
    // case 2 has 1 local criterion and the seeded group (2): 1 + 2 + 48 = 51
    const over = await post([sb.seed.testCases[2]], big);
    expect(over.status).toBe(400);
    expect(over.body.message[0]).toContain('51 effective criteria');
  });
});

describe('test-set runs', () => {
  const post = (body: unknown, id = sb.seed.testSet) => call(sb, 'POST', `/v2/test-sets/${id}/runs/public`, { body });

  it('starts a run as running with result null, then completes it', async () => {
    const res = await post({ ruleExecutionMode: 'execute', promptVersionId: sb.seed.promptVersions.v2 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ testSetId: sb.seed.testSet, status: 'running', result: null, createdBy: null });
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'createdBy', 'id', 'result', 'status', 'testSetId', 'updatedAt']);
    expect((await control('GET', `/__sandbox/test-set-runs/${res.body.id}`)).body.status).toBe('running');
    advance(RUN_MS);
    const done = (await control('GET', `/__sandbox/test-set-runs/${res.body.id}`)).body;
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ ruleExecutionMode: 'execute', total: 3 });
  });

  it('defaults to simulate and fails a run of a test set without cases', async () => {
    const ws = sb.state.workspaces.get(sb.seed.workspaceA)!;
    const empty = seedId('testSet', 'a', 2);
    ws.testSets.set(empty, { ...structuredClone(ws.testSets.get(sb.seed.testSet)!), id: empty, caseIds: [] });
    const res = await post(undefined, empty);
    expect(res.status).toBe(201);
    advance(RUN_MS);
    const done = (await control('GET', `/__sandbox/test-set-runs/${res.body.id}`)).body;
    expect(done.status).toBe('failed');
    expect(ws.testSetRuns.get(res.body.id)!.ruleExecutionMode).toBe('simulate');
  });

  it('rejects promptVersionId with reuse and unknown modes (400) and unknown test sets (404)', async () => {
    expect((await post({ ruleExecutionMode: 'reuse', promptVersionId: sb.seed.promptVersions.v1 })).body.message).toEqual([
      'promptVersionId is only allowed when ruleExecutionMode is simulate or execute',
    ]);
    expect((await post({ ruleExecutionMode: 'replay' })).status).toBe(400);
    expect((await post({}, seedId('testSet', 'a', 9))).status).toBe(404);
    expect((await post({}, sb.seed.testSet)).status).toBe(201);
    expect((await call(sb, 'POST', `/v2/test-sets/${sb.seed.testSet}/runs/public`, { key: sb.keys.readOnly, body: {} })).status).toBe(403);
  });
});

describe('tags', () => {
  const post = (id: string, body: unknown) => call(sb, 'POST', `/v2/tag-groups/${id}/tags/public`, { body });
  it('creates a tag with 201', async () => {
    const res = await post(sb.seed.tagGroups.topics, { tagName: 'sizing', tagDescription: 'Size and fit' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tagGroupId: sb.seed.tagGroups.topics, tagName: 'sizing', tagDescription: 'Size and fit' });
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'tagDescription', 'tagGroupId', 'tagName']);
  });
  it('rejects an empty tagName (400) and answers 500 for an unknown group', async () => {
    expect((await post(sb.seed.tagGroups.topics, { tagName: '  ' })).body.message).toContain('tagName should not be empty');
    expect((await post(sb.seed.tagGroups.topics, {})).status).toBe(400);
    expect((await post(seedId('tagGroup', 'a', 9), { tagName: 'x' })).status).toBe(500);
    expect((await post(sb.seed.tagGroups.system, { tagName: 'x' })).status).toBe(500);
  });
});
