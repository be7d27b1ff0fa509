/**
 * Output schemas: every tool with a documented result declares it, small and shallow, with the
 * fields the spec guarantees marked required; real sandbox results pass the SDK client's own
 * validation (Client.callTool checks structuredContent against the listed outputSchema).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { connect, sandboxEnv, textOf, withSandbox, type Connection } from '../support/harness.js';
import { catalog } from '../../tools/index.js';

/** Design sec. 9: all output schemas together, in any configuration, as tools/list shows them. */
const OUTPUT_BUDGET_TOKENS = 3_000;

/** The tools whose result the spec documents: those that declare an output schema. */
const DOCUMENTED_RESULTS = catalog.flatMap((group) => group.tools).filter((tool) => tool.output).map((tool) => tool.name);

let sandbox: Sandbox;
let server: Connection;
let listed: Tool[];

beforeAll(async () => {
  sandbox = await withSandbox({ rateLimit: { limit: 100_000, windowMs: 60_000 }, testRunTimings: { runMs: 60_000 } });
  // SVC_CONFIRM=none lists every output schema (no tool can answer with a preview): the largest configuration.
  server = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'none' }) });
  listed = (await server.client.listTools()).tools;
}, 30_000);
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

const tokens = (schema: unknown) => JSON.stringify(schema).length / 4;

/** Levels of `properties` below the top object; array items do not add a level. */
function depth(schema: Record<string, any>): number {
  const below = (node: Record<string, any>): number => {
    const target = node.type === 'array' || (Array.isArray(node.type) && node.items) ? node.items ?? {} : node;
    const properties = Object.values((target.properties ?? {}) as Record<string, Record<string, any>>);
    return properties.length ? 1 + Math.max(0, ...properties.map(below)) : 0;
  };
  return below(schema);
}

describe('declared output schemas', () => {
  it(`stay within ${OUTPUT_BUDGET_TOKENS} tokens in total (bytes / 4 of tools/list)`, () => {
    const sizes = listed.filter((tool) => tool.outputSchema).map((tool) => [tool.name, Math.round(tokens(tool.outputSchema))] as const);
    const total = Math.round(sizes.reduce((sum, [, size]) => sum + size, 0));
    const largest = [...sizes].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([name, size]) => `${name} ${size}`).join(', ');
    console.log(`output schemas: ${total} tokens over ${sizes.length} tools; largest: ${largest}`);
    expect(total, `output schemas total ${total} tokens; largest: ${largest}`).toBeLessThanOrEqual(OUTPUT_BUDGET_TOKENS);
  });

  it('are declared by exactly the tools with a documented result, at most two levels deep, with required fields', () => {
    expect(listed.filter((tool) => tool.outputSchema).map((tool) => tool.name).sort()).toEqual([...DOCUMENTED_RESULTS].sort());
    for (const tool of listed.filter((entry) => entry.outputSchema)) {
      expect(depth(tool.outputSchema as Record<string, any>), tool.name).toBeLessThanOrEqual(2);
      expect(tool.outputSchema!.required?.length, tool.name).toBeGreaterThan(0);
      expect(tool.outputSchema!.additionalProperties, tool.name).toBe(true);
    }
  });

  it('are not listed for write tools that may answer with a preview (clients without elicitation, SVC_CONFIRM=writes)', async () => {
    const previewing = await connect({ env: sandboxEnv(sandbox) });
    try {
      const tools = (await previewing.client.listTools()).tools;
      for (const tool of tools) {
        const write = tool.annotations?.readOnlyHint === false;
        if (write) expect(tool.outputSchema, tool.name).toBeUndefined();
        else expect(Boolean(tool.outputSchema), tool.name).toBe(DOCUMENTED_RESULTS.includes(tool.name));
      }
    } finally {
      await previewing.close();
    }
  }, 30_000);
});

describe('real sandbox results validate against them in the SDK client', () => {
  const call = async (name: string, args: Record<string, unknown>) => {
    // The client throws when structuredContent misses a required field or has a wrong type.
    const result = (await server.client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
    return result.structuredContent as Record<string, any>;
  };

  it('reads, in both views where there are two', async () => {
    const seed = sandbox.seed;
    for (const view of ['compact', 'full']) {
      await call('list_conversations', { view, since: '30d' });
      await call('list_articles', { view, type: 'draft' });
      await call('list_actions', { view });
      await call('list_rule_versions', { view, ruleId: seed.rules.whereIsMyOrder });
    }
    await call('get_articles', { articleIds: [seed.articles.shippingTimes, seed.articles.returnsPolicyDraft] });
    await call('get_source', { sourceId: seed.sources.webFailed });
    await call('get_rule_version', { ruleId: seed.rules.whereIsMyOrder, versionId: 'v2' });
    await call('get_replay', { replayId: seed.replay });
    expect(await call('get_refine_session', { interactionId: seed.negativeConversation, eventId: seed.negativeEvent })).toMatchObject({ active: true });
    for (const provider of ['notes', 'helpcenter', 'wiki']) await call('list_provider_resources', { provider });
  });

  it('writes', async () => {
    const seed = sandbox.seed;
    const { events } = await call('generate_answer', { botId: seed.bots.storeAssistant, content: 'How long does shipping take?' });
    const answer = events.find((event: { role: string }) => event.role === 'svcbot');
    expect(await call('get_refine_session', { interactionId: answer.interactionId, eventId: answer.id })).toMatchObject({ active: false });
    await call('give_feedback', { interactionId: answer.interactionId, eventId: answer.id, approved: true });
    await call('delete_conversation', { interactionId: answer.interactionId });
    const [resource] = (await call('list_provider_resources', { provider: 'notes' })).resources;
    const registered = await call('register_provider_resources', { provider: 'notes', resources: [{ ...resource, mimeType: resource.mimeType ?? 'text/markdown' }] });
    await call('ingest_sources', { source: 'notes', documentIdsToAdd: registered.addedDocumentIds });
    await call('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/returns'] });
    await call('publish_article_draft', { articleId: seed.articles.giftCardsDraft });
    await call('add_cases_to_criteria_group', { criteriaGroupId: seed.criteriaGroup, caseIds: [seed.testCases[0]] });
    await call('start_test_set_run', { testSetId: seed.testSet });
    await call('create_tag', { tagGroupId: seed.tagGroups.topics, tagName: 'gift cards' });
  });
});
