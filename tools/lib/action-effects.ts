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
  if (kind === 'action') lines.push("It is an action: it runs only from a rule's tool node, so the assignment alone does not make agents call it.");
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
