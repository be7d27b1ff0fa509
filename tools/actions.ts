import { z } from 'zod';
import { defineGroup, defineTool } from '../src/engine/define.js';
import { idInput, idList } from '../src/engine/inputs.js';
import { isRecord } from '../src/json.js';
import { defined, fieldOf, records, shortened } from './lib/records.js';
import { nonBlank, PASS_THROUGH } from './lib/inputs.js';
import { previewAddDataStep, previewAssignAction, previewTestRun, previewUpdateAction } from './lib/action-effects.js';
import { shape } from './lib/shapes.js';
import { setupAttribute } from './prompts.js';
import { actionAnswered, actionAssigned } from './lib/mirror/writes.js';

const fieldType = z.enum(['string', 'number', 'boolean', 'array', 'object', 'date']);
const fieldSource = z.enum(['metadata', 'jwt', 'apiResponse']);

const inputField = z
  .object({
    name: nonBlank('Used as ${name} in step URLs'),
    type: fieldType,
    required: z.boolean().optional(),
    path: z.string().optional(),
    value: z.unknown().optional(),
    source: fieldSource.optional(),
    defaultValue: z.unknown().optional(),
    autoBindPath: z.string().optional(),
  })
  .passthrough();

const outputField = z
  .object({
    name: nonBlank(),
    type: fieldType,
    path: z.string().optional().describe('apiResponse: "<stepId>.<key>"'),
    sendToLlm: z.boolean().optional(),
    source: fieldSource.optional(),
    useInRulebooks: z.boolean().optional(),
  })
  .passthrough()
  .superRefine((field, context) => {
    if (field.source !== 'apiResponse') return;
    if (!field.path || field.path.trim() === '') {
      context.addIssue({ code: z.ZodIssueCode.custom, path: ['path'], message: 'is required with source apiResponse: write "<stepId>.<responseMappingKey>"' });
    } else if (!/^[^.\s]+\.\S/.test(field.path)) {
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['path'],
        message: `must name the data step as "<stepId>.${field.path}" (step ids come from add_data_step); a bare key like "${field.path}" may resolve at runtime but the dashboard does not treat it as mapped`,
      });
    }
  });

const schemaFields = {
  inputSchema: z.array(inputField).optional(),
  outputSchema: z.array(outputField).optional(),
};

/** Checks the `${...}` templates of a data step URL; `{{placeholder}}` is unsupported (spec). */
function urlTemplateProblem(url: string): string | undefined {
  if (/\{\{[^}]*\}\}/.test(url)) {
    return 'uses {{placeholder}} syntax, which the API does not support: write ${fieldName} for an input field or ${stepId.key} for a value mapped by an earlier step';
  }
  for (const match of url.matchAll(/\$\{([^}]*)(\}?)/g)) {
    if (match[2] !== '}') return 'has an unclosed ${ template';
    if (match[1].trim() === '') return 'has an empty ${} template';
  }
  return undefined;
}

const stepUrl = z
  .string()
  .refine((url) => url.trim().length > 0, 'must not be empty')
  .superRefine((url, context) => {
    const problem = urlTemplateProblem(url);
    if (problem) context.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  })
  .describe("${field}: an input; ${stepId.key}: an earlier step's value");

/** A header's value, plain or inside the masked form. */
const plainValue = z.union([z.string(), z.number(), z.boolean()]);
const maskedValue = z.object({ hide: z.boolean(), value: plainValue }).strict();
const headerValue = z.union([z.string(), z.number(), z.boolean(), maskedValue]);
const stepFields = {
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
  headers: z.record(headerValue).nullable().optional().describe('Plain, or {hide: true, value} for a secret; send a masked "********" back unchanged'),
  body: z.record(z.unknown()).nullable().optional().describe('Same secret rules as headers'),
  responseMapping: z
    .record(z.union([z.string().min(1, 'must not be empty'), z.object({ path: z.string().min(1, 'must not be empty'), dataType: fieldType.optional() }).passthrough()]))
    .optional()
    .describe('key: response path ("." whole body, "a.b[0]") or {path, dataType}'),
};

const STEP_ERRORS = {
  400: 'check the step: url templates use ${field} or ${stepId.key}, method GET/POST/PUT/PATCH/DELETE, and a masked ******** value only where a stored secret exists',
  404: 'no action/attribute with this toolId, or no data step with this id (list_actions lists actions and attributes; add_data_step returns step ids)',
  500: 'the action or attribute could not be loaded from storage (an unknown toolId can surface this way; list_actions lists valid ids)',
};

type Classified = Record<string, unknown> & { kind: 'attribute' | 'action' | 'unknown' };

/** What the API made, from the record it returns: alwaysGet decides. */
const kindOf = (data: unknown) => (isRecord(data) && data.alwaysGet === true ? 'Attribute' : isRecord(data) && data.alwaysGet === false ? 'Action' : 'Action or attribute');

const listActions = defineTool({
  name: 'list_actions',
  title: 'List actions and attributes',
  words: 'tools integrations custom configured browse overview available existing current attribute function',
  gives: ['toolId'],
  scope: 'read',
  description: 'Lists actions (run by a rule) and attributes (data fetched every conversation) with their fields and agents.',
  input: z.object({ kind: z.enum(['all', 'attributes', 'actions']).default('all') }),
  route: { method: 'GET', path: '/v2/hc-tools/public' },
  transform: (response, input) => {
    const all: Classified[] = records(response).map((item) => ({
      ...item,
      kind: item.alwaysGet === true ? 'attribute' : item.alwaysGet === false ? 'action' : 'unknown',
    }));
    const wanted = input.kind === 'attributes' ? 'attribute' : input.kind === 'actions' ? 'action' : undefined;
    const kept = wanted ? all.filter((item) => item.kind === wanted || item.kind === 'unknown') : all;
    const unknown = kept.filter((item) => item.kind === 'unknown').length;
    return defined({
      kind: input.kind,
      count: kept.length,
      actions: kept,
      note: unknown ? `${unknown} record(s) came without alwaysGet, so they could not be classified and are shown as kind "unknown".` : undefined,
    });
  },
  list: {
    items: 'actions',
    compact: (item) =>
      defined({
        id: item.id,
        name: item.name,
        kind: item.kind,
        description: shortened(item.description, 160),
        fields: Array.isArray(item.fields) ? item.fields.map((field) => (isRecord(field) ? field.name : field)) : undefined,
        botIds: item.botIds,
        updatedAt: item.updatedAt,
      }),
    more: 'Filter with kind, or read svc://actions.',
  },
  output: shape({ kind: z.string(), count: z.number(), actions: z.array(shape({ id: z.string(), name: z.string(), kind: z.string() }, { botIds: z.array(z.string()) })) }),
  errors: { 500: 'the actions and attributes could not be loaded from storage; try again shortly' },
});

const createAction = defineTool({
  name: 'create_action',
  title: 'Create an action or attribute',
  words: 'new add set up tool integration lookup make attribute function',
  scope: 'write',
  description: `Creates an action (alwaysGet false, run by a rule) or attribute (alwaysGet true, fetched each conversation); its id is what update_action, add_data_step, assign_action_to_agents and test_action take. ${PASS_THROUGH}`,
  // The spec's setup names name and alwaysGet in this body without calling either required.
  input: z
    .object({
      name: z.string().optional(),
      alwaysGet: z.boolean().optional(),
      description: z.string().nullable().optional(),
    })
    .passthrough(),
  // The spec's setup sequence: create "with name and alwaysGet".
  route: { method: 'POST', path: '/v2/hc-tools/public', body: 'rest', payloadNotShown: ['name', 'alwaysGet'] },
  keepMirror: actionAnswered,
  done: (data) => `${kindOf(data)} ${fieldOf(data, 'id')} created; next: update_action for its inputSchema, add_data_step, assign_action_to_agents.`,
  errors: { 400: 'check name and alwaysGet (a boolean)' },
});

const updateAction = defineTool({
  name: 'update_action',
  title: 'Update an action or attribute',
  words: 'change edit rename fields input output schema modify fix correct adjust tool integration attribute function',
  scope: 'write',
  idempotent: true,
  description: `Sets an action's or attribute's inputSchema and outputSchema, or renames it. toolId from list_actions. ${PASS_THROUGH}`,
  input: z
    .object({
      toolId: idInput(),
      name: nonBlank().optional(),
      description: z.string().nullable().optional(),
      alwaysGet: z.boolean().optional(),
      ...schemaFields,
    })
    .passthrough(),
  // The spec's setup sequence: update "with inputSchema and outputSchema".
  route: { method: 'PATCH', path: '/v2/hc-tools/{toolId}/public', body: 'rest', payloadNotShown: ['inputSchema', 'outputSchema'] },
  keepMirror: actionAnswered,
  preview: previewUpdateAction,
  done: (_data, input) => `Action or attribute ${input.toolId} updated; next: test_action to check it.`,
  errors: {
    400: 'check the schema fields: types string/number/boolean/array/object/date, sources metadata/jwt/apiResponse, apiResponse paths "<stepId>.<key>"',
    404: STEP_ERRORS[404],
    500: STEP_ERRORS[500],
  },
});

const addDataStep = defineTool({
  name: 'add_data_step',
  title: 'Add a data step (external API call)',
  words: 'http request api call webhook endpoint url configure attach append',
  gives: ['id'],
  scope: 'write',
  description: `Adds an external API call to an action or attribute (toolId from list_actions); steps run by stepNumber. Returns the step id for output paths. ${PASS_THROUGH}`,
  input: z
    .object({
      toolId: idInput(),
      // The spec's type: "number or null".
      stepNumber: z.number().nullable().optional(),
      name: z.string().optional(),
      url: stepUrl.optional(),
      ...stepFields,
    })
    .passthrough(),
  // The spec's setup sequence: add a step "with toolId and stepNumber".
  route: { method: 'POST', path: '/v2/api-function-configs/public', body: 'rest', payloadNotShown: ['toolId', 'stepNumber'] },
  preview: previewAddDataStep,
  done: (data, input) => `Data step ${fieldOf(data, 'id')} added to ${input.toolId}; next: test_data_step, then update_action {outputSchema} with paths "${fieldOf(data, 'id')}.<key>".`,
  errors: STEP_ERRORS,
});

/** The agents of an assignment, whether given as botIds or botId. */
const agentIdsOf = (input: { botIds?: string[]; botId?: string }) => [...(input.botIds ?? []), ...(input.botId ? [input.botId] : [])];

const assignAction = defineTool({
  name: 'assign_action_to_agents',
  title: 'Assign an action or attribute to agents',
  words: 'enable turn on give let use bot channel connect link attach access grant assistant chatbot tool integration attribute function',
  scope: 'write',
  idempotent: true,
  description: `Assigns an action or attribute (toolId from list_actions) to agents (botIds or botId, from list_agents), optionally per channel. ${PASS_THROUGH}`,
  input: z
    .object({
      toolId: idInput().optional(),
      botIds: idList().optional(),
      botId: idInput().optional(),
      channels: idList('e.g. chat, email').optional(),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/hc-tools/junctions/public', body: 'rest', payloadNotShown: [] },
  keepMirror: actionAssigned,
  preview: (input, context) =>
    input.toolId
      ? previewAssignAction({ toolId: input.toolId, botIds: agentIdsOf(input), channels: input.channels }, context)
      : Promise.resolve(['No toolId given: this payload is not documented, so it is sent as written and the API decides.']),
  done: (_data, input) => `${input.toolId ?? 'The action'} assigned to ${agentIdsOf(input).length} agent(s); next: test_action to check what they will get.`,
  errors: { 404: 'the action/attribute or an agent was not found (list_actions and list_agents give valid ids)', 500: STEP_ERRORS[500] },
});

const testAction = defineTool({
  name: 'test_action',
  title: 'Test-run an action or attribute',
  words: 'run try execute sample inputs output work check trial debug verify tool integration attribute function',
  scope: 'write',
  openWorld: true,
  description: `Tries an action or attribute with sample inputs, calling its external APIs for real; returns outputs and step data. toolId from list_actions. ${PASS_THROUGH}`,
  input: z
    .object({
      toolId: idInput(),
      inputs: z.record(z.unknown()).optional().describe('By field name, e.g. {"orderId": "1001"}'),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/hc-tools/{toolId}/test-run/public', body: 'rest', payloadNotShown: [] },
  preview: previewTestRun,
  done: (data, input) => `Test run of ${input.toolId}: ${fieldOf(data, 'success') === 'true' ? 'succeeded' : 'failed'}; each step's request and data follow.`,
  errors: { ...STEP_ERRORS, 400: 'a required input is missing from inputs, or an input has the wrong type' },
});

const testDataStep = defineTool({
  name: 'test_data_step',
  title: 'Test one data step',
  words: 'check debug try http request endpoint status response url run trial verify api call webhook',
  scope: 'write',
  openWorld: true,
  description: `Tries one API call step alone, stored (id) or a full config; returns the HTTP status, response and error. ${PASS_THROUGH}`,
  input: z
    .object({
      id: z.string().trim().min(1).optional().describe('Stored step (add_data_step)'),
      toolId: z.string().trim().min(1).optional(),
      url: stepUrl.optional(),
      ...stepFields,
      inputs: z.record(z.unknown()).optional().describe('Values for ${} templates, "<stepId>.<key>" for earlier steps'),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/api-function-configs/test-run/public', body: 'rest', payloadNotShown: [] },
  preview: previewTestRun,
  done: (data) => `Data step test: ${fieldOf(data, 'success') === 'true' ? 'succeeded' : 'failed'} (HTTP status ${fieldOf(data, 'status')}).`,
  errors: STEP_ERRORS,
});

export const actions = defineGroup({
  name: 'actions',
  description: 'Actions and attributes, their data steps (external API calls), agent assignment and test runs.',
  tools: [listActions, createAction, updateAction, addDataStep, assignAction, testAction, testDataStep],
  aliases: { tool: 'action', integration: 'action', function: 'action' },
  resources: [
    {
      name: 'actions',
      title: 'Actions and attributes',
      description: 'Every action and attribute of the workspace with its output fields and assigned agents.',
      uri: 'svc://actions',
      tool: 'list_actions',
      args: { kind: 'all' },
    },
  ],
  prompts: [setupAttribute],
});
