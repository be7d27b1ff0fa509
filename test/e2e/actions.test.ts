/**
 * The actions tools (tools/actions.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateInput } from '../../src/engine/pipeline.js';
import { buildRequest } from '../../src/engine/request.js';
import { seedId } from '../../src/sandbox/ids.js';
import { MOCK_STORE_TOKEN } from '../../src/sandbox/mock.js';
import { catalog } from '../../tools/index.js';
import { apiRequests, textOf } from '../support/harness.js';
import { structured, useConnection, useServer } from '../support/fixture.js';
import { effectOf, expectListing, expectNothingSecret, expectRefused, resultLog } from '../support/tool-checks.js';

const SECRET_WRAPPED = 'sk_live_WRAPPED_9f8e7d6c';
const SECRET_PLAIN = 'plain-secret-5a4b3c2d';
const ACTIONS = ['list_actions', 'create_action', 'update_action', 'add_data_step', 'assign_action_to_agents', 'test_action', 'test_data_step'];

const ownTools = new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool]));

const log = resultLog();
const { sandbox, server, call } = useServer({ env: { SVC_CONFIRM: 'none' }, onResult: log.keep });
const guarded = useConnection(sandbox, { env: { SVC_CONFIRM: 'destructive' }, onResult: log.keep });
/** Answers writes with a preview and a confirmToken (no elicitation). */
const previewing = useConnection(sandbox, { env: { SVC_CONFIRM: 'writes' }, onResult: log.keep });

describe('tools/list', () => {
  it('lists all 7 tools with their hints and output schemas on documented results', async () => {
    await expectListing(server, {
      tools: ACTIONS,
      reads: ['list_actions'],
      openWorld: ['test_action', 'test_data_step'],
      idempotentWrites: ['update_action', 'assign_action_to_agents'],
      outputs: ['list_actions'],
    });
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
});

describe('documented rules are refused before sending', () => {
  it('names the field and sends nothing', async () => {
    await expectRefused(call, sandbox, [
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
      ['list_actions', { kind: 'functions' }, 'kind: must be one of'],
    ]);
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
  it('test_action: explains a 404 with the tool that lists the ids', async () => {
    const tool = await call('test_action', { toolId: seedId('tool', 'a', 77) });
    expect(textOf(tool)).toContain('list_actions');
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

describe('confirmation under SVC_CONFIRM=destructive', () => {
  it('test_data_step: previews an outbound data step test without sending, showing every value but the API key; test_action and test_data_step ask for it', async () => {
    const secretPreview = await guarded.call('test_data_step', {
      url: `${sandbox.url}/__sandbox/mock/echo`,
      headers: { Authorization: `Bearer ${SECRET_PLAIN}`, 'X-Key': { hide: true, value: SECRET_WRAPPED } },
    });
    expect(textOf(secretPreview)).toContain('nothing was sent');
    expect(textOf(secretPreview)).toContain(`"Authorization": "Bearer ${SECRET_PLAIN}"`);
    expect(textOf(secretPreview)).toContain(`"value": "${SECRET_WRAPPED}"`);
    expect(JSON.stringify(secretPreview)).not.toContain(sandbox.keys.admin);
    expect(apiRequests(sandbox)).toHaveLength(0);
    const { tools } = await guarded.client.listTools();
    const confirmable = tools.filter((tool) => ACTIONS.includes(tool.name) && 'confirm' in ((tool.inputSchema.properties ?? {}) as object)).map((tool) => tool.name);
    expect(confirmable.sort()).toEqual(['test_action', 'test_data_step']);
  });
});

describe('previews say which fields change', () => {
  it('update_action reads the action and names the changed fields and output fields', async () => {
    const effect = await effectOf(previewing, 'update_action', {
      toolId: sandbox.seed.tools.orderStatus,
      description: 'Looks up an order by number',
      outputSchema: [{ name: 'carrier', type: 'string' }],
    });
    expect(effect[0]).toMatch(/^Updates action .*\(/);
    expect(effect).toContainEqual(expect.stringMatching(/^ {2}description: .+ -> Looks up an order by number$/m));
    expect(effect).toContainEqual(expect.stringMatching(/^outputSchema: replaced by 1 field\(s\); adds carrier, drops /));
  });
});

describe('inputs and errors as the spec documents them', () => {
  it('create_action sends without alwaysGet, which the spec names but does not require', async () => {
    const result = await call('create_action', { name: 'Gift card balance' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result).split('\n')[0]).toMatch(/^Action \S+ created/);
    expect(apiRequests(sandbox).at(-1)).toMatchObject({ method: 'POST', path: '/v2/hc-tools/public', body: { name: 'Gift card balance' } });
  });
});

describe('resources', () => {
  it('serves the actions as a resource', async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text('svc://actions')).toContain('Customer tier');
  });
});

describe('secrets never leave', () => {
  it('shows no secret in any result or log line, and no API key in a preview either', () => {
    expectNothingSecret(log, [server, guarded, previewing], [MOCK_STORE_TOKEN, ...Object.values(sandbox.keys)], [SECRET_WRAPPED, SECRET_PLAIN]);
  });
});

describe('input properties (fast-check, in process)', () => {
  const tool = (name: string) => ownTools.get(name)!;
  const uuid = fc.uuid();
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
