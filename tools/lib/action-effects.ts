import type { PreviewContext } from '../../src/engine/define.js';
import { isRecord } from '../../src/json.js';
import { agentNames, fieldUpdates, lookup, named, readAgents, unreadable, type Item } from './effects.js';

/** What the record is, by alwaysGet: unknown when the record could not be read. */
const kindOf = (action: Item | undefined) => (action?.alwaysGet === true ? 'attribute' : action?.alwaysGet === false ? 'action' : 'action or attribute');

export async function previewAssignAction(input: { toolId: string; botIds: string[]; channels?: string[] }, context: PreviewContext): Promise<string[]> {
  const [actions, agents] = await Promise.all([lookup(context, 'list_actions', {}, 'the actions and attributes'), readAgents(context)]);
  const action = actions.byId.get(input.toolId);
  if (!actions.failed && !action) return [`No action or attribute ${input.toolId} exists in this workspace: the API will answer 404 and nothing changes.`];
  const kind = kindOf(action);
  const assigned = new Set(Array.isArray(action?.botIds) ? action.botIds.map(String) : []);
  const channels = input.channels?.length ? ` on ${input.channels.join(', ')}` : '';
  const lines = [`Assigns ${kind} ${named(context, actions, input.toolId)} to ${agentNames(context, agents, input.botIds)}${channels}.`];
  const already = input.botIds.filter((id) => assigned.has(id));
  if (already.length) lines.push(`Already assigned: ${agentNames(context, agents, already)}.`);
  if (kind === 'action') context.warn("It is an action: it runs only from a rule's tool node, and the API stores its assignments without enforcing them, so this alone does not make agents call it.");
  if (kind === 'attribute') lines.push('It is an attribute: these agents fetch it at the start of every conversation.');
  return [...lines, ...unreadable(actions, agents)];
}

/** Names of schema fields, for a line that says which fields a schema adds and drops. */
const fieldNames = (schema: unknown) => (Array.isArray(schema) ? schema.map((field) => String(isRecord(field) ? field.name : field)) : []);

export async function previewUpdateAction(input: { toolId: string; inputSchema?: unknown[]; outputSchema?: unknown[] } & Item, context: PreviewContext): Promise<string[]> {
  const actions = await lookup(context, 'list_actions', {}, 'the actions and attributes');
  if (actions.failed) return [actions.failed];
  const action = actions.byId.get(input.toolId);
  if (!action) return [`No action or attribute ${input.toolId} exists in this workspace: the API will answer 404 and nothing changes.`];
  const { toolId: _id, inputSchema, outputSchema, ...given } = input;
  const kind = kindOf(action);
  const lines = [`Updates ${kind} ${named(context, actions, input.toolId)}:`];
  if (Object.values(given).some((value) => value !== undefined)) lines.push(...fieldUpdates(context, action, given, 'list_actions'));
  if (inputSchema)
    lines.push(
      `inputSchema: replaced by ${inputSchema.length} field(s)${inputSchema.length ? `: ${context.quote(fieldNames(inputSchema).join(', '))}` : ''} (list_actions does not show the current ones).`,
    );
  if (outputSchema) {
    // The list route's `fields` are the output fields (their Visible to AI flag is the output field's sendToLlm).
    const now = fieldNames(action.fields);
    const next = fieldNames(outputSchema);
    const added = next.filter((name) => !now.includes(name));
    const dropped = now.filter((name) => !next.includes(name));
    const change = [added.length && `adds ${context.quote(added.join(', '))}`, dropped.length && `drops ${context.quote(dropped.join(', '))}`].filter(Boolean).join(', ');
    lines.push(`outputSchema: replaced by ${next.length} field(s); ${change || 'the same field names as now (their settings may change)'}.`);
  }
  if (lines.length === 1) lines.push('Nothing to change: no field given.');
  return lines;
}

/** What the API returns in place of a stored secret, and takes back to keep it. */
const MASKED = '********';

/** Where a value holds the masked placeholder: `headers.Authorization`, `body.auth.token`. */
function maskedPaths(value: unknown, path: string): string[] {
  if (value === MASKED) return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => maskedPaths(item, `${path}[${index}]`));
  if (!isRecord(value)) return [];
  // A {hide, value} pair is one value: named by the field that holds it.
  if ('hide' in value && value.value === MASKED) return [path];
  return Object.entries(value).flatMap(([key, item]) => maskedPaths(item, `${path}.${key}`));
}

/**
 * add_data_step: sending "********" back keeps a stored secret (spec, Masking), but a new step
 * has none, so the placeholder itself would be stored. With `id` the sandbox updates that step
 * (its choice; the spec shows no such field), where the placeholder keeps what is stored.
 */
export async function previewAddDataStep(input: Item & { toolId: string; id?: unknown }, context: PreviewContext): Promise<string[]> {
  const masked = input.id === undefined ? [...maskedPaths(input.headers, 'headers'), ...maskedPaths(input.body, 'body')] : [];
  if (masked.length) {
    context.warn(
      `${masked.join(', ')} ${masked.length > 1 ? 'hold' : 'holds'} the masked "${MASKED}", which keeps a stored secret only on a step that has one: this step is new, so "${MASKED}" itself would be stored and sent to the outside API. Give the real value as {hide: true, value: "<secret>"}.`,
    );
  }
  return [
    `Adds a ${String(input.method ?? 'GET')} step${input.stepNumber === undefined || input.stepNumber === null ? '' : ` (stepNumber ${String(input.stepNumber)})`} to action or attribute ${input.toolId}; it calls ${input.url === undefined ? 'no URL yet' : context.quote(input.url)} each time the action or attribute runs.`,
  ];
}

/** test_action and test_data_step call the outside systems for real (spec, Actions and attributes): a step that writes writes. */
export async function previewTestRun(input: Item & { method?: string }, context: PreviewContext): Promise<string[]> {
  if (input.method === 'GET') return ['Calls the outside API for real, with GET.'];
  context.warn(
    input.method === undefined
      ? "Calls the outside APIs of the steps for real: a step that writes (POST, PUT, PATCH, DELETE) changes that system's data, and a test run has no undo."
      : `Calls the outside API for real with ${input.method}: whatever it changes there stays changed, and a test run has no undo.`,
  );
  return [];
}
