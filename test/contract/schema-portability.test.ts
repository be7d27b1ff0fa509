/**
 * Every listed schema passes the MCP Inspector's schema portability check with no finding
 * (test/support/schema-portability.ts). The Inspector itself needs Node 22.19, so this suite
 * carries its rules rather than the tool.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { validateInput } from '../../src/engine/pipeline.js';
import { catalog } from '../../tools/index.js';
import { listingUnder } from '../support/context-cost.js';
import { portabilityFindings } from '../support/schema-portability.js';

const findingsOf = (tools: Tool[]) =>
  tools.flatMap((tool) => [...portabilityFindings(tool.inputSchema, `${tool.name} inputSchema`), ...(tool.outputSchema ? portabilityFindings(tool.outputSchema, `${tool.name} outputSchema`) : [])]);

describe("the MCP Inspector's schema portability check", () => {
  const configurations: Array<[string, Record<string, string>, boolean]> = [
    ['all, no elicitation', {}, false],
    ['all, elicitation', {}, true],
    ['SVC_CONFIRM=none', { SVC_CONFIRM: 'none' }, false],
    ['core', { SVC_TOOLSETS: 'core' }, false],
    ['core, read-only, elicitation', { SVC_TOOLSETS: 'core', SVC_READ_ONLY: 'true' }, true],
  ];
  for (const [name, env, elicits] of configurations) {
    it(`finds nothing in any input or output schema listed (${name})`, () => {
      expect(findingsOf(listingUnder(env, elicits))).toEqual([]);
    });
  }

  it('lists one type for a time, and still takes epoch ms as a number', () => {
    const since = listingUnder().find((tool) => tool.name === 'list_conversations')!.inputSchema.properties!.since;
    expect(since).toMatchObject({ type: 'string' });
    const tool = catalog.flatMap((group) => group.tools).find((candidate) => candidate.name === 'list_conversations')!;
    const now = Date.now();
    for (const since of [now - 86_400_000, String(now - 86_400_000), new Date(now - 86_400_000).toISOString(), '1d']) {
      expect(validateInput(tool, { since, until: now }, {}, now), String(since)).toMatchObject({ ok: true, value: { since: now - 86_400_000, until: now } });
    }
  });

  it('finds what it looks for, so the check above can fail', () => {
    expect(portabilityFindings({ type: 'object', properties: { a: { type: ['number', 'string'] } } })).toEqual(['.properties.a: type is a list ["number","string"]']);
    expect(portabilityFindings({ type: 'object', properties: { a: {}, b: { description: 'x' } } })).toEqual(['.properties.a: constrains nothing', '.properties.b: constrains nothing']);
    expect(portabilityFindings({ type: 'array', items: true })).toEqual(['.items: bare true where a schema object is expected (error)']);
    expect(portabilityFindings({ type: 'object', additionalProperties: true, properties: { r: { $ref: 'https://example.com/s.json' } } })).toEqual(['.properties.r: $ref to another document']);
    expect(portabilityFindings({ not: {} })).toEqual([]);
    expect(portabilityFindings({ anyOf: [{ type: 'string' }, { type: 'null' }], description: 'x' })).toEqual([]);
  });
});
