/**
 * Output schemas: every tool with a documented result declares it, small and shallow, with the
 * fields the spec guarantees marked required; real sandbox results pass the SDK client's own
 * validation (Client.callTool checks structuredContent against the listed outputSchema).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { apiRequests, connect, sandboxEnv, textOf } from '../support/harness.js';
import { useServer } from '../support/fixture.js';
import { catalog } from '../../tools/index.js';
import { GATE_ANSWER_META } from '../../src/views/results.js';
import { isWrite } from '../support/write-routes.js';
import { SERVER_INFO } from '../../src/engine/server-info.js';

/** Design sec. 9: all output schemas together, in any configuration, as tools/list shows them. */
const OUTPUT_BUDGET_TOKENS = 3_000;

/** The tools whose result the spec documents (those of the catalog that declare an output schema), and server_info's, which the engine documents. */
const DOCUMENTED_RESULTS = [
  ...catalog
    .flatMap((group) => group.tools)
    .filter((tool) => tool.output)
    .map((tool) => tool.name),
  SERVER_INFO,
];

const { sandbox, server, call } = useServer({
  sandbox: { rateLimit: { limit: 100_000, windowMs: 60_000 }, testRunTimings: { runMs: 60_000 } },
  // SVC_CONFIRM=none lists every output schema (no tool can answer with a preview): the largest configuration.
  env: { SVC_CONFIRM: 'none' },
});
let listed: Tool[];

beforeAll(async () => {
  listed = (await server.client.listTools()).tools;
});

const tokens = (schema: unknown) => JSON.stringify(schema).length / 4;

/** Levels of `properties` below the top object; array items do not add a level. */
function depth(schema: Record<string, any>): number {
  const below = (node: Record<string, any>): number => {
    const target = node.type === 'array' || (Array.isArray(node.type) && node.items) ? (node.items ?? {}) : node;
    const properties = Object.values((target.properties ?? {}) as Record<string, Record<string, any>>);
    return properties.length ? 1 + Math.max(0, ...properties.map(below)) : 0;
  };
  return below(schema);
}

describe('declared output schemas', () => {
  it(`stay within ${OUTPUT_BUDGET_TOKENS} tokens in total (bytes / 4 of tools/list)`, () => {
    const sizes = listed.filter((tool) => tool.outputSchema).map((tool) => [tool.name, Math.round(tokens(tool.outputSchema))] as const);
    const total = Math.round(sizes.reduce((sum, [, size]) => sum + size, 0));
    const largest = [...sizes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([name, size]) => `${name} ${size}`)
      .join(', ');
    console.log(`output schemas: ${total} tokens over ${sizes.length} tools; largest: ${largest}`);
    expect(total, `output schemas total ${total} tokens; largest: ${largest}`).toBeLessThanOrEqual(OUTPUT_BUDGET_TOKENS);
  });

  it('are declared by exactly the tools with a documented result, at most two levels deep, with required fields', () => {
    expect(
      listed
        .filter((tool) => tool.outputSchema)
        .map((tool) => tool.name)
        .sort(),
    ).toEqual([...DOCUMENTED_RESULTS].sort());
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
  const validated = async (name: string, args: Record<string, unknown>) => {
    // The client throws when structuredContent misses a required field or has a wrong type.
    const result = await call(name, args);
    expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
    return result.structuredContent as Record<string, any>;
  };

  it('reads, in both views where there are two', async () => {
    const seed = sandbox.seed;
    for (const view of ['compact', 'full']) {
      await validated('list_conversations', { view, since: '30d' });
      await validated('list_articles', { view, type: 'draft' });
      await validated('list_actions', { view });
      await validated('list_rule_versions', { view, ruleId: seed.rules.whereIsMyOrder });
    }
    await validated('get_articles', { articleIds: [seed.articles.shippingTimes, seed.articles.returnsPolicyDraft] });
    await validated('get_source', { sourceId: seed.sources.webFailed });
    await validated('get_rule_version', { ruleId: seed.rules.whereIsMyOrder, versionId: 'v2' });
    await validated('get_replay', { replayId: seed.replay });
    expect(await validated('get_refine_session', { interactionId: seed.negativeConversation, eventId: seed.negativeEvent })).toMatchObject({ active: true });
    for (const provider of ['notes', 'helpcenter', 'wiki']) await validated('list_provider_resources', { provider });
    expect(await validated(SERVER_INFO, {})).toMatchObject({ confirm: 'none', confirmBy: 'token', readOnly: false, protocolVersion: expect.any(String) });
  });

  it('writes', async () => {
    const seed = sandbox.seed;
    const { events } = await validated('generate_answer', { botId: seed.bots.storeAssistant, content: 'How long does shipping take?' });
    const answer = events.find((event: { role: string }) => event.role === 'svcbot');
    expect(await validated('get_refine_session', { interactionId: answer.interactionId, eventId: answer.id })).toMatchObject({ active: false });
    await validated('give_feedback', { interactionId: answer.interactionId, eventId: answer.id, approved: true });
    await validated('delete_conversation', { interactionId: answer.interactionId });
    const [resource] = (await validated('list_provider_resources', { provider: 'notes' })).resources;
    const registered = await validated('register_provider_resources', { provider: 'notes', resources: [{ ...resource, mimeType: resource.mimeType ?? 'text/markdown' }] });
    await validated('ingest_sources', { source: 'notes', documentIdsToAdd: registered.addedDocumentIds });
    await validated('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/returns'] });
    await validated('publish_article_draft', { articleId: seed.articles.giftCardsDraft });
    await validated('add_cases_to_criteria_group', { criteriaGroupId: seed.criteriaGroup, caseIds: [seed.testCases[0]] });
    await validated('start_test_set_run', { testSetId: seed.testSet });
    await validated('create_tag', { tagGroupId: seed.tagGroups.topics, tagName: 'gift cards' });
  });
});

describe("the confirmation gate's answers pass the client's check where a schema is listed", () => {
  /** Valid arguments for each write tool with a documented result; the gate answers before anything is sent, so ids need not exist. */
  const WRITE_ARGS: Record<string, Record<string, unknown>> = {
    generate_answer: { botId: 'b', content: 'hello' },
    give_feedback: { interactionId: 'i', eventId: 'e', approved: true },
    delete_conversation: { interactionId: 'i' },
    register_provider_resources: { provider: 'notes', resources: [{ externalId: 'r', title: 'r', originalUrl: 'https://example.com/r', mimeType: 'text/markdown' }] },
    ingest_sources: { documentIdsToAdd: ['https://example.com/a'] },
    publish_article_draft: { articleId: 'a' },
    add_cases_to_criteria_group: { criteriaGroupId: '00000000-0000-4000-8000-000000000001', caseIds: ['00000000-0000-4000-8000-000000000002'] },
    start_test_set_run: { testSetId: 't' },
    create_tag: { tagGroupId: 'g', tagName: 'n' },
  };

  it('names every write tool with a documented result', () => {
    const writes = catalog.flatMap((group) => group.tools).filter((tool) => tool.output && tool.scope !== 'read');
    expect(Object.keys(WRITE_ARGS).sort()).toEqual(writes.map((tool) => tool.name).sort());
  });

  // A client that listed the tools throws on structured content that misses the schema; the gate's answer is no write result, so it comes as an error, in text alone.
  for (const [setting, options] of [
    ['SVC_CONFIRM=none, confirm: true asks for a preview', { env: { SVC_CONFIRM: 'none' }, confirm: true }],
    ['elicitation, the user declines', { elicit: () => ({ action: 'decline' as const }), confirm: undefined }],
  ] as const) {
    it(`${setting}: an error result that sends nothing`, async () => {
      const client = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, 'env' in options ? options.env : {}), ...('elicit' in options ? { elicit: options.elicit } : {}) });
      try {
        const listed = (await client.client.listTools()).tools;
        const sentBefore = apiRequests(sandbox).length;
        for (const [name, args] of Object.entries(WRITE_ARGS)) {
          expect(listed.find((tool) => tool.name === name)?.outputSchema, name).toBeDefined();
          const result = await client.call(name, { ...args, ...(options.confirm ? { confirm: true } : {}) });
          expect(result.isError, `${name}: ${textOf(result)}`).toBe(true);
          expect(textOf(result), name).toMatch(/nothing was sent/i);
          expect(textOf(result), name).toMatch(/^(POST|PUT|PATCH|DELETE) \/v2\//m);
          expect(result.structuredContent, name).toBeUndefined();
          // A view that asked with confirm: true finds the preview's token where no client checks it.
          expect(result._meta?.[GATE_ANSWER_META], name).toMatchObject({ sent: false, ...(options.confirm && { confirmToken: expect.any(String) }) });
        }
        // A preview may read its target (a POST of ids, for one); no write route may be sent.
        const writes = apiRequests(sandbox)
          .slice(sentBefore)
          .filter((request) => isWrite(request));
        expect(writes).toEqual([]);
      } finally {
        await client.close();
      }
    }, 30_000);
  }
});
