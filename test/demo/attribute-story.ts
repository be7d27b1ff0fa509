import { SEED } from '../../src/sandbox/seed-ids.js';
import type { DemoSession } from './session.js';

interface Listed {
  actions: Array<{ id: string; name: string; kind: string }>;
}

interface TestRun {
  success: boolean;
  output: Record<string, unknown>;
  steps: Array<{ request?: { url: string } }>;
}

/**
 * A support engineer adds an attribute that tells the agent the status of the customer's order,
 * fetched from the store's order API, and test-runs it until it answers.
 */
export async function attributeStory(demo: DemoSession): Promise<void> {
  demo.step('What actions and attributes exist?');
  const listed = await demo.call<Listed>('list_actions', {}, 12);

  // The sandbox serves its example store API on its own (ephemeral) port. The existing
  // "Look up order status" action already calls it: one test run shows the resolved URL.
  const lookup = listed.actions.find((item) => item.name === 'Look up order status');
  if (!lookup) throw new Error('the seeded order lookup action is missing');
  demo.step('Test the existing order lookup action (an outbound call, so it asks first)');
  const existing = await demo.call<TestRun>('test_action', { toolId: lookup.id, inputs: { orderId: 'NW-1001' } }, 10);
  const resolved = existing.steps[0]?.request?.url;
  if (!resolved) throw new Error('the test run did not show the resolved request URL');
  const storeApi = `${new URL(resolved).origin}/__sandbox/mock`;
  demo.say(`the store API lives at ${storeApi}`);

  demo.step('1. Create the attribute (alwaysGet: fetched at the start of every conversation)');
  const created = await demo.call<{ id: string }>(
    'create_action',
    {
      name: 'Latest order status',
      alwaysGet: true,
      description: 'Status of the order the customer is asking about, so the agent can answer "where is my order?" directly.',
    },
    6,
  );

  demo.step('2. Declare its input: the order id from the conversation metadata');
  await demo.call(
    'update_action',
    {
      toolId: created.id,
      inputSchema: [{ name: 'orderId', type: 'string', required: true, source: 'metadata', path: 'order_id' }],
    },
    4,
  );

  demo.step('3. Add the data step: GET the order, with the store token stored as a secret');
  const step = await demo.call<{ id: string }>(
    'add_data_step',
    {
      toolId: created.id,
      stepNumber: 1,
      name: 'Get order',
      method: 'GET',
      url: `${storeApi}/orders/\${orderId}`,
      headers: { Accept: 'application/json', Authorization: { hide: true, value: 'Bearer nw_live_4b1d9e0c7a2f' } },
      responseMapping: { status: 'status', eta: { path: 'estimatedDelivery', dataType: 'date' } },
    },
    12,
  );

  demo.step('4. Map the outputs to the step: paths are "<stepId>.<key>"');
  await demo.call(
    'update_action',
    {
      toolId: created.id,
      outputSchema: [
        { name: 'orderStatus', type: 'string', path: `${step.id}.status`, sendToLlm: true, source: 'apiResponse' },
        { name: 'estimatedDelivery', type: 'date', path: `${step.id}.eta`, sendToLlm: true, source: 'apiResponse' },
      ],
    },
    4,
  );

  demo.step('5. Assign it to the chat agent (attributes run only for assigned agents)');
  await demo.call('assign_action_to_agents', { toolId: created.id, botIds: [SEED.bots.storeAssistant], channels: ['chat'] }, 6);

  demo.step('6. Test-run it with an order id');
  const run = await demo.call<TestRun>('test_action', { toolId: created.id, inputs: { orderId: 'NW-20417' } }, 8);
  demo.say(`success: ${run.success}; the agent will see ${JSON.stringify(run.output)}`);
}
