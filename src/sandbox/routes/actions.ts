/**
 * Actions and attributes (hc-tools), their data steps (api-function-configs), agent
 * assignments, and test runs. Choices where the spec says "not shown": CHOICES.md.
 */
import { badRequest } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { findInWorkspace, iso, requireInWorkspace, type Workspace } from '../state.js';
import {
  FIELD_TYPES,
  STEP_METHODS,
  checkUrl,
  maskedStep,
  orderedSteps,
  parseMaskedValues,
  parseResponseMapping,
  resolveOutputs,
  runStep,
  stepConfig,
  type StepConfig,
  type StepVariables,
} from '../steps.js';
import type { DataStep, FieldSource, FieldType, HcTool, InputField, OutputField, ToolAssignment } from '../types.js';
import { Violations, isPlainObject, objectBody, objectList, oneOf, optionalBoolean, optionalString, requireString, uuidParam } from '../validate.js';

const FIELD_SOURCES: readonly FieldSource[] = ['metadata', 'jwt', 'apiResponse'];

function toolView(ws: Workspace, tool: HcTool): Record<string, unknown> {
  return {
    id: tool.id,
    createdAt: tool.createdAt,
    updatedAt: tool.updatedAt,
    companyId: tool.companyId,
    name: tool.name,
    description: tool.description,
    alwaysGet: tool.alwaysGet,
    source: tool.source ?? null,
    inputSchema: structuredClone(tool.inputSchema),
    outputSchema: structuredClone(tool.outputSchema),
    builtInHandler: tool.builtInHandler,
    botIds: botIdsOf(ws, tool.id),
  };
}

function botIdsOf(ws: Workspace, toolId: string): string[] {
  const ids: string[] = [];
  for (const a of ws.toolAssignments.values()) if (a.toolId === toolId && !ids.includes(a.botId)) ids.push(a.botId);
  return ids;
}

/** Compact list form (spec) plus `alwaysGet`, which the spec tells clients to filter on. */
function compactTool(ws: Workspace, tool: HcTool): Record<string, unknown> {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    source: tool.source ?? null,
    alwaysGet: tool.alwaysGet,
    fields: tool.outputSchema.map((f) => ({ name: f.name, type: f.type, visibleToAi: f.sendToLlm, useInRulebooks: f.useInRulebooks ?? true })),
    botIds: botIdsOf(ws, tool.id),
    createdAt: tool.createdAt,
    updatedAt: tool.updatedAt,
  };
}

function fieldType(v: Violations, name: string, value: unknown): FieldType | undefined {
  if (value === undefined || value === null || !FIELD_TYPES.includes(value as FieldType)) {
    v.add(`${name} must be one of the following values: ${FIELD_TYPES.join(', ')}`);
    return undefined;
  }
  return value as FieldType;
}

function parseInputSchema(v: Violations, raw: unknown): InputField[] | undefined {
  return objectList(v, 'inputSchema', raw, (item, at) => {
    const field: InputField = {
      name: requireString(v, `${at}.name`, item.name) ?? '',
      type: fieldType(v, `${at}.type`, item.type) ?? 'string',
      required: optionalBoolean(v, `${at}.required`, item.required) ?? false,
    };
    const path = optionalString(v, `${at}.path`, item.path);
    const autoBindPath = optionalString(v, `${at}.autoBindPath`, item.autoBindPath);
    const source = oneOf(v, `${at}.source`, item.source, FIELD_SOURCES);
    if (path !== undefined) field.path = path;
    if (autoBindPath !== undefined) field.autoBindPath = autoBindPath;
    if (source !== undefined) field.source = source;
    if (item.value !== undefined) field.value = item.value;
    if (item.defaultValue !== undefined) field.defaultValue = item.defaultValue;
    return field;
  });
}

function parseOutputSchema(v: Violations, raw: unknown): OutputField[] | undefined {
  return objectList(v, 'outputSchema', raw, (item, at) => {
    const name = requireString(v, `${at}.name`, item.name) ?? '';
    // The spec gives `source` no default: a field without one is stored without one.
    const source = oneOf(v, `${at}.source`, item.source, FIELD_SOURCES) ?? null;
    // A bare key is accepted (it resolves at runtime), as the spec says; only the dashboard treats it as unmapped.
    const path = source === 'apiResponse' ? (requireString(v, `${at}.path`, item.path) ?? '') : (optionalString(v, `${at}.path`, item.path) ?? null);
    const field: OutputField = {
      name,
      type: fieldType(v, `${at}.type`, item.type) ?? 'string',
      path,
      sendToLlm: optionalBoolean(v, `${at}.sendToLlm`, item.sendToLlm) ?? true,
      source,
    };
    const useInRulebooks = optionalBoolean(v, `${at}.useInRulebooks`, item.useInRulebooks);
    if (useInRulebooks !== undefined) field.useInRulebooks = useInRulebooks;
    return field;
  });
}

function loadTool(req: RouteRequest, id: string): HcTool {
  return requireInWorkspace(req.state, req.workspace, 'tools', id, 'Tool not found');
}

/** The stored data step a body's `id` names, when it names one. */
function dataStepOf(req: RouteRequest, id: unknown): DataStep | undefined {
  if (id === undefined) return undefined;
  if (!isUuid(id)) throw badRequest(['id must be a UUID']);
  return requireInWorkspace(req.state, req.workspace, 'dataSteps', id, 'Data step not found');
}

export function createTool(req: RouteRequest) {
  const body = objectBody(req.body);
  const v = new Violations();
  const name = requireString(v, 'name', body.name);
  const alwaysGet = optionalBoolean(v, 'alwaysGet', body.alwaysGet) ?? false;
  const description = body.description === null ? null : (optionalString(v, 'description', body.description) ?? null);
  const source = optionalString(v, 'source', body.source);
  const inputSchema = parseInputSchema(v, body.inputSchema);
  const outputSchema = parseOutputSchema(v, body.outputSchema);
  v.throwIfAny();
  const at = iso(req.now);
  const tool: HcTool = {
    id: newId(),
    createdAt: at,
    updatedAt: at,
    companyId: req.workspace.id,
    name: name!,
    description,
    alwaysGet,
    source: source ?? 'api',
    inputSchema: inputSchema ?? [],
    outputSchema: outputSchema ?? [],
    builtInHandler: null,
  };
  req.workspace.tools.set(tool.id, tool);
  return { status: 201, body: toolView(req.workspace, tool) };
}

export function updateTool(req: RouteRequest) {
  const tool = loadTool(req, uuidParam(req.params, 'id'));
  const body = objectBody(req.body);
  const v = new Violations();
  const name = body.name === undefined ? undefined : requireString(v, 'name', body.name);
  const alwaysGet = optionalBoolean(v, 'alwaysGet', body.alwaysGet);
  const description = body.description === null ? null : optionalString(v, 'description', body.description);
  const inputSchema = parseInputSchema(v, body.inputSchema);
  const outputSchema = parseOutputSchema(v, body.outputSchema);
  v.throwIfAny();
  if (name !== undefined) tool.name = name;
  if (alwaysGet !== undefined) tool.alwaysGet = alwaysGet;
  if (description !== undefined) tool.description = description;
  if (inputSchema) tool.inputSchema = inputSchema;
  if (outputSchema) tool.outputSchema = outputSchema;
  tool.updatedAt = iso(req.now);
  return { body: toolView(req.workspace, tool) };
}

/** Create a data step; with the `id` of an existing step it updates that step (sandbox choice, masking applies). */
export function saveDataStep(req: RouteRequest) {
  const ws = req.workspace;
  const body = objectBody(req.body);
  const v = new Violations();
  const existing = dataStepOf(req, body.id);
  const toolIdValue = existing && body.toolId === undefined ? existing.toolId : requireString(v, 'toolId', body.toolId);
  if (toolIdValue !== undefined && !isUuid(toolIdValue)) v.add('toolId must be a UUID');
  let stepNumber: number | null | undefined;
  if (body.stepNumber === null) stepNumber = null;
  else if (body.stepNumber !== undefined) {
    if (typeof body.stepNumber !== 'number' || !Number.isFinite(body.stepNumber)) v.add('stepNumber must be a number');
    else stepNumber = body.stepNumber;
  }
  const url = body.url === undefined || body.url === null ? (existing?.url ?? null) : (checkUrl(v, body.url) ?? null);
  const method = oneOf(v, 'method', body.method, STEP_METHODS);
  const name = optionalString(v, 'name', body.name);
  const headers = parseMaskedValues(v, 'headers', body.headers, existing?.headers, { headers: true });
  const stepBody = parseMaskedValues(v, 'body', body.body, existing?.body);
  const responseMapping = parseResponseMapping(v, body.responseMapping);
  v.throwIfAny();
  const tool = loadTool(req, toolIdValue!);
  const at = iso(req.now);
  if (existing) {
    existing.toolId = tool.id;
    if (stepNumber !== undefined) existing.stepNumber = stepNumber;
    existing.url = url;
    if (method) existing.method = method;
    if (name !== undefined) existing.name = name;
    if (headers !== undefined) existing.headers = headers;
    if (stepBody !== undefined) existing.body = stepBody;
    if (responseMapping) existing.responseMapping = responseMapping;
    existing.updatedAt = at;
    return { body: maskedStep(existing) };
  }
  const count = [...ws.dataSteps.values()].filter((s) => s.toolId === tool.id).length;
  const step: DataStep = {
    id: newId(),
    createdAt: at,
    updatedAt: at,
    companyId: ws.id,
    name: name ?? `Step ${stepNumber ?? count + 1}`,
    toolId: tool.id,
    stepNumber: stepNumber ?? null,
    url,
    method: method ?? 'GET',
    headers: headers ?? null,
    body: stepBody ?? null,
    responseMapping: responseMapping ?? {},
  };
  ws.dataSteps.set(step.id, step);
  return { status: 201, body: maskedStep(step) };
}

export function assign(req: RouteRequest) {
  const ws = req.workspace;
  const body = objectBody(req.body);
  const v = new Violations();
  const id = requireString(v, 'toolId', body.toolId);
  let botIds: string[] = [];
  const rawBots = body.botIds ?? (body.botId === undefined ? undefined : [body.botId]);
  if (!Array.isArray(rawBots) || rawBots.length === 0) v.add('botIds should not be empty');
  else if (rawBots.some((b) => typeof b !== 'string' || b.trim() === '')) v.add('each value in botIds must be a non-empty string');
  else botIds = [...new Set(rawBots as string[])];
  let channels: string[] | undefined;
  if (body.channels !== undefined) {
    if (!Array.isArray(body.channels) || body.channels.some((c) => typeof c !== 'string' || c.trim() === '')) v.add('channels must be an array of non-empty strings');
    else channels = [...new Set(body.channels as string[])];
  }
  v.throwIfAny();
  const tool = loadTool(req, id!);
  const bots = botIds.map((botId) => requireInWorkspace(req.state, ws, 'bots', botId, `Bot not found: ${botId}`));
  const at = iso(req.now);
  const out: ToolAssignment[] = bots.map((bot) => {
    const current = [...ws.toolAssignments.values()].find((a) => a.toolId === tool.id && a.botId === bot.id);
    if (current) {
      current.channels = channels ?? current.channels;
      return current;
    }
    const record: ToolAssignment = { id: newId(), botId: bot.id, toolId: tool.id, companyId: ws.id, channels: channels ?? [...bot.channels], createdAt: at };
    ws.toolAssignments.set(record.id, record);
    return record;
  });
  return { status: 201, body: out.map((a) => ({ ...a, channels: [...a.channels] })) };
}

function inputsOf(v: Violations, raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) {
    v.add('inputs must be an object');
    return {};
  }
  return raw;
}

export async function testTool(req: RouteRequest) {
  const ws = req.workspace;
  const tool = loadTool(req, uuidParam(req.params, 'id'));
  const body = objectBody(req.body);
  const v = new Violations();
  const given = inputsOf(v, body.inputs);
  const inputs: Record<string, unknown> = { ...given };
  for (const field of tool.inputSchema) {
    const value = field.value ?? given[field.name] ?? field.defaultValue;
    if (value === undefined || value === null || value === '') {
      if (field.required) v.add(`inputs.${field.name} should not be empty`);
    } else inputs[field.name] = value;
  }
  v.throwIfAny();
  const steps = orderedSteps([...ws.dataSteps.values()].filter((s) => s.toolId === tool.id));
  const vars: StepVariables = { inputs, steps: {} };
  const results: Record<string, unknown>[] = [];
  let success = true;
  for (const step of steps) {
    if (!success) {
      results.push({ stepId: step.id, name: step.name, stepNumber: step.stepNumber, success: false, skipped: true, error: 'not run: an earlier step failed' });
      continue;
    }
    const outcome = await runStep(stepConfig(step), vars);
    if (outcome.success) vars.steps[step.id] = outcome.data;
    else success = false;
    results.push({
      stepId: step.id,
      name: step.name,
      stepNumber: step.stepNumber,
      success: outcome.success,
      status: outcome.status,
      request: outcome.request ?? null,
      data: outcome.data,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
  }
  const output = resolveOutputs(
    tool,
    vars,
    steps.map((s) => s.id),
  );
  return {
    body: {
      id: tool.id,
      name: tool.name,
      alwaysGet: tool.alwaysGet,
      success,
      output,
      sendToLlm: tool.alwaysGet ? Object.fromEntries(tool.outputSchema.map((f) => [f.name, f.sendToLlm])) : {},
      steps: results,
    },
  };
}

/** Tests one HTTP call: a stored step by `id` (fields given override it; masked values keep its secrets) or a full config. */
export async function testDataStep(req: RouteRequest) {
  const ws = req.workspace;
  const body = objectBody(req.body);
  const v = new Violations();
  const stored = dataStepOf(req, body.id);
  const url = stored && body.url === undefined ? stored.url : checkUrl(v, body.url);
  const method = oneOf(v, 'method', body.method, STEP_METHODS) ?? stored?.method ?? 'GET';
  const headers = parseMaskedValues(v, 'headers', body.headers, stored?.headers, { headers: true });
  const stepBody = parseMaskedValues(v, 'body', body.body, stored?.body);
  const responseMapping = parseResponseMapping(v, body.responseMapping);
  const inputs = inputsOf(v, body.inputs);
  if (body.toolId !== undefined && (typeof body.toolId !== 'string' || !findInWorkspace(req.state, ws, 'tools', body.toolId)))
    v.add('toolId must be the id of an action or attribute of this workspace');
  v.throwIfAny();
  const config: StepConfig = {
    id: stored?.id ?? 'test',
    name: stored?.name ?? 'test',
    stepNumber: stored?.stepNumber ?? null,
    url: url ?? null,
    method,
    headers: headers === undefined ? (stored?.headers ?? null) : headers,
    body: stepBody === undefined ? (stored?.body ?? null) : stepBody,
    responseMapping: responseMapping ?? stored?.responseMapping ?? {},
  };
  // `${stepId.key}` values of earlier steps can be given as inputs under that dotted name.
  const outcome = await runStep(config, { inputs, steps: {} });
  return { body: { success: outcome.success, status: outcome.status, response: outcome.response, ...(outcome.error ? { error: outcome.error } : {}) } };
}

export function listTools(req: RouteRequest) {
  return {
    body: [...req.workspace.tools.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1)).map((tool) => compactTool(req.workspace, tool)),
  };
}
