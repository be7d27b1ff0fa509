/**
 * Catalog rule (design sec. 2 and 9): a tool whose payload the spec does not show requires
 * nothing beyond its path parameters and the fields the spec names, and passes unknown fields
 * through to the request.
 */
import { describe, expect, it } from 'vitest';
import { validateInput } from '../../src/engine/pipeline.js';
import { buildRequest } from '../../src/engine/request.js';
import { jsonSchemaOf } from '../../src/engine/schema.js';
import { catalog } from '../../tools/index.js';

const tools = new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool]));
/** Tools whose request payload is "not shown", with the fields the spec names for them: their routes say so. */
const NOT_SHOWN: Record<string, readonly string[]> = Object.fromEntries([...tools.values()].flatMap((tool) => (tool.route?.payloadNotShown ? [[tool.name, tool.route.payloadNotShown]] : [])));
const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);

describe('tools whose payload the spec does not show', () => {
  it('are all in the catalog', () => {
    for (const name of Object.keys(NOT_SHOWN)) expect(tools.has(name), name).toBe(true);
  });

  for (const [name, named] of Object.entries(NOT_SHOWN)) {
    it(`${name}: requires only path parameters and fields the spec names, and passes unknown fields through`, () => {
      const tool = tools.get(name)!;
      const route = tool.route!;
      const allowed = [...pathParams(route.path), ...named];
      const required = jsonSchemaOf(tool.input, 'input').required ?? [];
      expect(
        required.filter((field) => !allowed.includes(field)),
        name,
      ).toEqual([]);
      if (route.method === 'GET' || route.method === 'DELETE') return; // no body to pass anything through
      const minimal = Object.fromEntries(required.map((field) => [field, field === 'alwaysGet' ? true : 'x']));
      const parsed = validateInput(tool, { ...minimal, customerField: { any: ['json'] } }, {});
      expect(parsed.ok, `${name}: ${parsed.ok ? '' : parsed.message}`).toBe(true);
      if (parsed.ok) expect(buildRequest(tool, parsed.value).body, name).toMatchObject({ customerField: { any: ['json'] } });
    });
  }
});
