/**
 * Tool names are contract (design §17): users' allowlists, skills and scripts hold them. Every name
 * a client was ever offered keeps answering; a rename keeps the old name as an alias
 * (`formerNames`, or for `call_tool` the gateway's own). A new tool's name is one more line below.
 */
import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../tools/index.js';
import type { ToolGroup } from '../../src/engine/define.js';
import { useConnection, useSandbox } from '../support/fixture.js';
import { apiRequests, connect, sandboxEnv, textOf, type Connection } from '../support/harness.js';
import { isWrite } from '../support/write-routes.js';

/** Every name clients have been offered. Never remove one; add each new tool's name here, one line. */
const PROMISED = [
  // The catalog of design §2.
  'list_conversations',
  'export_conversations',
  'generate_answer',
  'give_feedback',
  'delete_conversation',
  'conversation_stats',
  'list_agents',
  'list_provider_resources',
  'register_provider_resources',
  'crawl_links',
  'ingest_sources',
  'get_source',
  'wait_for_sources',
  'initialize_knowledge_tree',
  'persist_knowledge_tree',
  'generate_knowledge',
  'generate_knowledge_bulk',
  'get_knowledge_jobs_status',
  'list_articles',
  'get_articles',
  'create_article',
  'update_article',
  'create_article_draft',
  'publish_article_draft',
  'move_article',
  'delete_article',
  'compare_article_draft',
  'list_folders',
  'create_folder',
  'update_folder',
  'move_folder',
  'delete_folder',
  'assign_folders_to_agent',
  'list_actions',
  'create_action',
  'update_action',
  'add_data_step',
  'assign_action_to_agents',
  'test_action',
  'test_data_step',
  'list_rule_versions',
  'get_rule_version',
  'compare_rule_versions',
  'get_replay',
  'get_refine_session',
  'wait_for_refine_session',
  'add_cases_to_criteria_group',
  'start_test_set_run',
  'create_tag',
  // The core surface's gateway; call_tool left the listing (design §17) and stays as an alias.
  'find_tools',
  'call_tool',
  'call_read_tool',
  'call_write_tool',
  // Added from issue 34 on.
  'server_info',
  'sync_workspace',
  'query_workspace',
  'explain_change',
  'measure_change',
];

/** Promised names whose tools other branches are building: each leaves this set when its tool lands (the test below fails while it stays). */
const NOT_YET_BUILT = new Set<string>();

/** Whether a call was refused because the server does not know the name (a protocol error, or the gateway's tool error). */
async function unknownTo(connection: Connection, name: string): Promise<boolean> {
  try {
    const result = await connection.call(name, {});
    return Boolean(result.isError) && textOf(result).startsWith(`Unknown tool ${name}`);
  } catch (error) {
    if (error instanceof McpError && error.message.includes(`Unknown tool ${name}`)) return true;
    throw error;
  }
}

const sandbox = useSandbox();
/** Every catalog tool is listed under `all` (the mirror's among them); the gateway answers under `core`. */
const MIRROR = { SVC_MIRROR: 'memory' };
const everything = useConnection(sandbox, { env: MIRROR });
const core = useConnection(sandbox, { env: { ...MIRROR, SVC_TOOLSETS: 'core' } });

describe('tool names (design §17: names are contract)', () => {
  it('the catalog holds the 49 tools of design §2 and every one added since, each under a promised name', () => {
    const names = catalog.flatMap((group) => group.tools).map((tool) => tool.name);
    expect(PROMISED.slice(0, 49).every((name) => names.includes(name))).toBe(true);
    for (const name of names) expect(PROMISED, name).toContain(name);
  });

  it('every name any configuration lists is promised: a new tool is added above', async () => {
    const listings: Tool[][] = [];
    for (const env of [{}, { SVC_TOOLSETS: 'core' }, { SVC_READ_ONLY: 'true' }, { SVC_TOOLSETS: 'core', SVC_READ_ONLY: 'true' }, { SVC_CONFIRM: 'none' }] as Record<string, string>[]) {
      const connection = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { ...MIRROR, ...env }) });
      listings.push((await connection.client.listTools()).tools);
      await connection.close();
    }
    for (const tool of listings.flat()) expect(PROMISED, tool.name).toContain(tool.name);
  });

  it('every promised name still answers, listed or as an alias, and a call with no arguments sends no write', async () => {
    for (const name of PROMISED.filter((promised) => !NOT_YET_BUILT.has(promised))) {
      const answered = !(await unknownTo(everything, name)) || !(await unknownTo(core, name));
      expect(answered, `${name} is no longer answered: a rename keeps the old name in formerNames`).toBe(true);
    }
    expect(
      apiRequests(sandbox)
        .filter((request) => isWrite(request))
        .map((request) => `${request.method} ${request.path}`),
    ).toEqual([]);
  });

  it('names not built on this branch are not answered yet: each leaves NOT_YET_BUILT when its tool lands', async () => {
    for (const name of NOT_YET_BUILT) {
      expect(PROMISED).toContain(name);
      expect(await unknownTo(everything, name), name).toBe(true);
    }
  });

  it('a renamed tool that keeps its old name in formerNames answers both, and lists only the new one; without it the old name is unknown', async () => {
    const renamed = (formerNames?: string[]): ToolGroup[] =>
      catalog.map((group) => ({ ...group, tools: group.tools.map((tool) => (tool.name === 'list_agents' ? { ...tool, name: 'list_bots', formerNames } : tool)) }));
    for (const [formerNames, oldAnswers] of [
      [['list_agents'], true],
      [undefined, false],
    ] as const) {
      const connection = await connect({ env: sandboxEnv(sandbox), engine: { catalog: renamed(formerNames ? [...formerNames] : undefined) } });
      try {
        const listed = (await connection.client.listTools()).tools.map((tool) => tool.name);
        expect(listed).toContain('list_bots');
        expect(listed).not.toContain('list_agents');
        expect((await connection.call('list_bots')).isError).toBeFalsy();
        const old = connection.call('list_agents');
        if (oldAnswers) expect((await old).isError).toBeFalsy();
        else await expect(old).rejects.toThrow(/Unknown tool list_agents/);
      } finally {
        await connection.close();
      }
    }
  });
});
