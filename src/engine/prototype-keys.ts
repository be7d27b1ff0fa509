import { fieldPath, PROTOTYPE_NAMES } from './inputs.js';

/** A value met on the walk, with the way to it (a parent link, so that a deep message costs no copies of its path). */
interface Step {
  value: unknown;
  key?: string | number;
  parent?: Step;
  /** The params of a tools/call: their `arguments` are the call guard's. */
  callParams?: boolean;
}

/**
 * Why a JSON-RPC body, as JSON.parse made it, is refused: an own field named `__proto__`,
 * `constructor` or `prototype` at any level, named by its path (`params.__proto__`,
 * `[1].params._meta.constructor`); undefined when there is none. The SDK's schemas copy what they
 * parse, and a copy makes an own `__proto__` its prototype: `{"params":{"__proto__":{"name":
 * "create_folder",…}}}` then read as a call of create_folder. A transport refuses such a body before
 * anything parses it. The arguments of a tools/call are left to the call's own guard, which answers
 * with a tool error naming the field. The walk keeps its own stack, so no depth costs the process's.
 */
export function prototypeKeyProblem(body: unknown): string | undefined {
  const top: Step = { value: body };
  const messages = new Set(Array.isArray(body) ? body : [body]);
  const pending: Step[] = [top];
  for (let step = pending.pop(); step; step = pending.pop()) {
    const { value } = step;
    if (value === null || typeof value !== 'object') continue;
    const call = messages.has(value) && (value as { method?: unknown }).method === 'tools/call';
    for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
      if (typeof key === 'string' && PROTOTYPE_NAMES.has(key)) return `${fieldPath(pathTo({ value: item, key, parent: step }))}: "${key}" is not allowed as a field name, at any level of a message`;
      if (!(step.callParams && key === 'arguments')) pending.push({ value: item, key, parent: step, callParams: call && key === 'params' });
    }
  }
  return undefined;
}

function pathTo(step: Step): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Step | undefined = step; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}
