/** The sandbox's actions routes (src/sandbox/routes/), over raw HTTP. */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { MOCK_STORE_TOKEN } from '../../src/sandbox/mock.js';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const sb = useSandbox(() => start());

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
