/**
 * Data steps (external API calls of actions and attributes): masked header/body values,
 * `${}` interpolation, response mapping, and running steps against loopback URLs only.
 */
import { MASK, maskValues } from './state.js';
import type { DataStep, FieldType, HcTool, MaskedValue, ResponseMappingEntry } from './types.js';
import { type Violations, isPlainObject } from './validate.js';

export const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'boolean', 'array', 'object', 'date'];
export const STEP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const STEP_TIMEOUT_MS = 5_000;

/** `{hide: boolean, value}` and nothing else: the wire form of a header or body value. */
export function isMaskedValue(value: unknown): value is MaskedValue {
  return isPlainObject(value) && typeof value.hide === 'boolean' && 'value' in value && Object.keys(value).length === 2;
}

/**
 * Header or body values from a request. Masked `********` (wrapped or plain) keeps the stored
 * secret; a new plain value replaces the stored one and keeps its sensitivity; `{hide, value}`
 * sets both. Returns undefined when the field is absent.
 */
export function parseMaskedValues(
  v: Violations,
  name: string,
  raw: unknown,
  stored: Record<string, MaskedValue> | null | undefined,
  opts: { headers?: boolean } = {},
): Record<string, MaskedValue> | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  if (!isPlainObject(raw)) {
    v.add(`${name} must be an object`);
    return undefined;
  }
  const out: Record<string, MaskedValue> = {};
  for (const [key, value] of Object.entries(raw)) {
    const masked = isMaskedValue(value);
    const inner = masked ? value.value : value;
    if (inner === MASK && (!masked || value.hide)) {
      const kept = stored?.[key];
      if (!kept) v.add(`${name}.${key} is the mask ${MASK} but no stored value exists to keep`);
      else out[key] = { ...kept };
      continue;
    }
    if (opts.headers && !['string', 'number', 'boolean'].includes(typeof inner)) {
      v.add(`${name}.${key} must be a string`);
      continue;
    }
    out[key] = masked ? { hide: value.hide, value: inner } : { hide: stored?.[key]?.hide ?? false, value: inner };
  }
  return out;
}

export function parseResponseMapping(v: Violations, raw: unknown): Record<string, ResponseMappingEntry> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) {
    v.add('responseMapping must be an object');
    return undefined;
  }
  const out: Record<string, ResponseMappingEntry> = {};
  for (const [key, entry] of Object.entries(raw)) {
    if (typeof entry === 'string' && entry.trim() !== '') {
      out[key] = entry;
    } else if (isPlainObject(entry) && typeof entry.path === 'string' && entry.path.trim() !== '') {
      const dataType = entry.dataType ?? entry.type;
      if (dataType !== undefined && !FIELD_TYPES.includes(dataType as FieldType)) {
        v.add(`responseMapping.${key}.dataType must be one of the following values: ${FIELD_TYPES.join(', ')}`);
        continue;
      }
      out[key] = dataType === undefined ? { path: entry.path } : { path: entry.path, dataType: dataType as FieldType };
    } else {
      v.add(`responseMapping.${key} must be a path string or {path, dataType}`);
    }
  }
  return out;
}

/** `{{placeholder}}` is not supported by the API (spec): rejected with 400. */
export function checkUrl(v: Violations, url: unknown): string | undefined {
  if (typeof url !== 'string' || url.trim() === '') {
    v.add('url should not be empty');
    return undefined;
  }
  if (/\{\{[^}]*\}\}/.test(url)) {
    v.add('url must not use {{placeholder}} syntax; use ${fieldName} or ${stepId.key}');
    return undefined;
  }
  return url;
}

// ---------------------------------------------------------------------------
// Running steps

export interface StepVariables {
  inputs: Record<string, unknown>;
  /** extracted data of earlier steps by step id */
  steps: Record<string, Record<string, unknown>>;
}

class TemplateError extends Error {}

/** Reads `a.b[0].c` (or `a.b.0.c`) from a value; `.` is the value itself. */
export function readPath(value: unknown, path: string): unknown {
  if (path === '.' || path === '') return value;
  const parts = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((part) => part !== '');
  let current = value;
  for (const part of parts) {
    if (current === null || current === undefined) return undefined;
    if (Array.isArray(current)) current = current[Number(part)];
    else if (typeof current === 'object') current = (current as Record<string, unknown>)[part];
    else return undefined;
  }
  return current;
}

function resolveTemplate(expression: string, vars: StepVariables): unknown {
  const name = expression.trim();
  if (name in vars.inputs) return vars.inputs[name];
  const dot = name.indexOf('.');
  if (dot > 0) {
    const stepId = name.slice(0, dot);
    const key = name.slice(dot + 1);
    if (vars.steps[stepId] && key in vars.steps[stepId]) return vars.steps[stepId][key];
  }
  const nested = readPath(vars.inputs, name);
  if (nested !== undefined) return nested;
  throw new TemplateError(`unresolved template \${${name}}: no input field or earlier step value has that name`);
}

const TEMPLATE = /\$\{([^}]*)\}/g;

function interpolateString(text: string, vars: StepVariables, encode: (value: string, offset: number) => string = (value) => value): string {
  return text.replace(TEMPLATE, (_, expression: string, offset: number) => {
    const value = resolveTemplate(expression, vars);
    return encode(typeof value === 'string' ? value : JSON.stringify(value), offset);
  });
}

/** A string that is exactly one template keeps the value's type (numbers stay numbers in JSON bodies). */
function interpolateValue(value: unknown, vars: StepVariables): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{([^}]*)\}$/.exec(value);
    if (whole) return resolveTemplate(whole[1], vars);
    return interpolateString(value, vars);
  }
  if (Array.isArray(value)) return value.map((item) => interpolateValue(item, vars));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateValue(item, vars)]));
  return value;
}

export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function coerce(value: unknown, type: FieldType | undefined): unknown {
  if (value === undefined || value === null || type === undefined) return value;
  switch (type) {
    case 'number': {
      const n = Number(value);
      return Number.isFinite(n) ? n : value;
    }
    case 'string':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'boolean':
      return value === true || value === 'true' ? true : value === false || value === 'false' ? false : value;
    case 'date': {
      const t = typeof value === 'number' || typeof value === 'string' ? Date.parse(String(value)) : NaN;
      return Number.isNaN(t) ? value : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : new Date(t).toISOString();
    }
    default:
      return value;
  }
}

export function extract(body: unknown, mapping: Record<string, ResponseMappingEntry>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(mapping)) {
    const path = typeof entry === 'string' ? entry : entry.path;
    const type = typeof entry === 'string' ? undefined : entry.dataType;
    const value = readPath(body, path);
    out[key] = value === undefined ? null : coerce(value, type);
  }
  return out;
}

export interface StepConfig {
  id: string;
  name: string;
  stepNumber: number | null;
  url: string | null;
  method: DataStep['method'];
  headers: Record<string, MaskedValue> | null;
  body: Record<string, MaskedValue> | null;
  responseMapping: Record<string, ResponseMappingEntry>;
}

export interface StepOutcome {
  success: boolean;
  /** HTTP status of the outbound call; null when no call was made */
  status: number | null;
  /** raw response body (parsed JSON, else text) */
  response: unknown;
  /** extracted values by responseMapping key */
  data: Record<string, unknown>;
  error?: string;
  /** the resolved request, with sensitive values masked */
  request?: { method: string; url: string; headers: Record<string, MaskedValue> | null; body: unknown };
}

/**
 * Runs one step: resolves `${}` templates, calls the URL (loopback only, no redirects, 5 s
 * timeout) and extracts `responseMapping`. Never throws.
 */
export async function runStep(step: StepConfig, vars: StepVariables): Promise<StepOutcome> {
  if (step.url === null) return notCalled('the step has no url, so nothing was called');
  let url: string;
  let headers: Record<string, string>;
  let payload: Record<string, unknown> | null;
  try {
    url = interpolateString(step.url, vars, (value, offset) => (offset === 0 ? value : encodeURIComponent(value)));
    headers = Object.fromEntries(Object.entries(step.headers ?? {}).map(([key, entry]) => [key, String(interpolateValue(entry.value, vars))]));
    payload = step.body === null ? null : Object.fromEntries(Object.entries(step.body).map(([key, entry]) => [key, interpolateValue(entry.value, vars)]));
  } catch (error) {
    return notCalled((error as Error).message);
  }
  const maskedHeaders =
    step.headers === null ? null : Object.fromEntries(Object.entries(step.headers).map(([key, entry]) => [key, entry.hide ? { hide: true, value: MASK } : { hide: false, value: headers[key] }]));
  const maskedBody = payload === null ? null : Object.fromEntries(Object.entries(payload).map(([key, value]) => [key, step.body![key].hide ? MASK : value]));
  const request = { method: step.method, url, headers: maskedHeaders, body: maskedBody };
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return notCalled(`invalid URL after interpolation: ${url}`, request);
  }
  if (!['http:', 'https:'].includes(target.protocol) || !isLoopbackUrl(target)) {
    return notCalled(`the sandbox calls only loopback URLs (127.0.0.1, localhost, ::1); ${target.host || url} was not called`, request);
  }
  if (isSandboxControl(target)) {
    return notCalled("the sandbox's control routes answer only the sandbox's own controls, never a data step; only /__sandbox/mock/ may be called", request);
  }
  const hasBody = payload !== null && step.method !== 'GET' && step.method !== 'DELETE';
  let response: Response;
  try {
    response = await fetch(target, {
      method: step.method,
      headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...headers },
      body: hasBody ? JSON.stringify(payload) : undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
    });
  } catch (error) {
    return notCalled(`the call failed: ${(error as Error).message}`, request);
  }
  const text = await response.text().catch(() => '');
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // keep the text
  }
  if (!response.ok) {
    return { success: false, status: response.status, response: parsed, data: {}, error: `the call answered HTTP ${response.status}`, request };
  }
  return { success: true, status: response.status, response: parsed, data: extract(parsed, step.responseMapping), request };
}

/** A step that got no answer: nothing called, or the call failed before a response. */
function notCalled(error: string, request?: StepOutcome['request']): StepOutcome {
  return { success: false, status: null, response: null, data: {}, error, ...(request && { request }) };
}

/** A sandbox control path (keys, faults, request log), as decoded by any loopback sandbox; the mock store backend is the one exception. */
function isSandboxControl(target: URL): boolean {
  let path: string;
  try {
    path = decodeURIComponent(target.pathname).toLowerCase();
  } catch {
    return true;
  }
  return path.startsWith('/__sandbox') && !path.startsWith('/__sandbox/mock/');
}

export function stepConfig(step: DataStep): StepConfig {
  return { id: step.id, name: step.name, stepNumber: step.stepNumber, url: step.url, method: step.method, headers: step.headers, body: step.body, responseMapping: step.responseMapping };
}

/** Steps run in ascending stepNumber (null last), then creation order. */
export function orderedSteps(steps: DataStep[]): DataStep[] {
  return [...steps].sort((a, b) => {
    const x = a.stepNumber ?? Number.POSITIVE_INFINITY;
    const y = b.stepNumber ?? Number.POSITIVE_INFINITY;
    return x !== y ? x - y : a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;
  });
}

/** A `<stepId>.<key>` path from that step, or a bare key from the last step that has it. */
function fromSteps(path: string, vars: StepVariables, order: string[]): unknown {
  const dot = path.indexOf('.');
  const stepId = dot > 0 ? path.slice(0, dot) : '';
  if (vars.steps[stepId]) return readPath(vars.steps[stepId], path.slice(dot + 1));
  for (const id of [...order].reverse()) {
    const candidate = readPath(vars.steps[id], path);
    if (candidate !== undefined) return candidate;
  }
  return undefined;
}

/**
 * Output values of a tool after its steps ran: apiResponse fields from the steps, metadata and
 * jwt fields from the inputs, and fields without a source from the steps, else the inputs.
 */
export function resolveOutputs(tool: HcTool, vars: StepVariables, order: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of tool.outputSchema) {
    const path = field.path ?? field.name;
    const fromInputs = () => vars.inputs[field.name] ?? readPath(vars.inputs, path);
    let value: unknown;
    if (field.source === 'apiResponse') value = fromSteps(path, vars, order);
    else if (field.source === null) value = fromSteps(path, vars, order) ?? fromInputs();
    else value = fromInputs();
    out[field.name] = value === undefined ? null : coerce(value, field.type);
  }
  return out;
}

export function maskedStep(step: DataStep): Record<string, unknown> {
  return {
    id: step.id,
    createdAt: step.createdAt,
    updatedAt: step.updatedAt,
    companyId: step.companyId,
    name: step.name,
    toolId: step.toolId,
    stepNumber: step.stepNumber,
    url: step.url,
    method: step.method,
    headers: maskValues(step.headers),
    body: maskValues(step.body),
    responseMapping: structuredClone(step.responseMapping),
  };
}
