import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { objectShape } from '../../src/engine/inputs.js';
import { catalog } from '../../tools/index.js';
import { between, defaultToolList, manifestTools, readmeConfigTable, readmeToolTable } from '../release/catalog-views.js';
import { listingUnder } from '../support/context-cost.js';
import { CONFIG_END, CONFIG_PAGE_PATH, CONFIG_START, MANIFEST_PATH, README_PATH, ROOT, SNAPSHOT_PATH, TABLE_END, TABLE_START, TOOLS_PAGE_PATH } from '../support/paths.js';

const tools = catalog.flatMap((group) => group.tools);
/** The engine's tools, which some configuration lists beside the catalog's. */
const OFFERED_BESIDE_THE_CATALOG = ['server_info', 'find_tools', 'call_read_tool', 'call_write_tool', 'call_tool'];
const REGENERATE = 'run `npm run snapshot` and review the diff';

/** Design section 2: the names and groups are the public contract. */
const CONTRACT: Record<string, string[]> = {
  conversations: ['list_conversations', 'export_conversations', 'conversation_stats', 'generate_answer', 'give_feedback', 'delete_conversation'],
  agents: ['list_agents'],
  sources: ['list_provider_resources', 'register_provider_resources', 'crawl_links', 'ingest_sources', 'get_source', 'wait_for_sources'],
  knowledge: ['initialize_knowledge_tree', 'persist_knowledge_tree', 'generate_knowledge', 'generate_knowledge_bulk', 'get_knowledge_jobs_status'],
  articles: ['list_articles', 'get_articles', 'create_article', 'update_article', 'create_article_draft', 'publish_article_draft', 'move_article', 'delete_article', 'compare_article_draft'],
  folders: ['list_folders', 'create_folder', 'update_folder', 'move_folder', 'delete_folder', 'assign_folders_to_agent'],
  actions: ['list_actions', 'create_action', 'update_action', 'add_data_step', 'assign_action_to_agents', 'test_action', 'test_data_step'],
  rules: ['list_rule_versions', 'get_rule_version', 'compare_rule_versions'],
  replays: ['get_replay'],
  refine: ['get_refine_session', 'wait_for_refine_session'],
  testing: ['add_cases_to_criteria_group', 'start_test_set_run'],
  tags: ['create_tag'],
  analytics: ['sync_workspace', 'query_workspace', 'explain_change', 'measure_change'],
};

describe('catalog rules', () => {
  it('has unique tool names', () => {
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length);
  });
  it('follows the contract: each implemented group has exactly its named tools', () => {
    for (const group of catalog) {
      expect(CONTRACT[group.name], `unknown group ${group.name}`).toBeDefined();
      expect(group.tools.map((tool) => tool.name).sort()).toEqual([...CONTRACT[group.name]].sort());
      for (const tool of group.tools) expect(tool.group).toBe(group.name);
    }
  });
  it('gives every tool all four annotation hints and a title', () => {
    for (const entry of defaultToolList()) {
      expect(entry.title, entry.name).toBeTruthy();
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof entry.annotations?.[hint], `${entry.name}.${hint}`).toBe('boolean');
      }
    }
  });
  it('keeps descriptions short and concrete', () => {
    for (const tool of tools) {
      expect(tool.description.length, tool.name).toBeGreaterThan(40);
      expect(tool.description.length, tool.name).toBeLessThanOrEqual(420);
    }
  });
  it('never tells the model what to call first or next (the Claude directory rule): a description says what a tool is for, its neighbour, and where its ids come from', () => {
    const names = [...tools.map((tool) => tool.name), ...OFFERED_BESIDE_THE_CATALOG].join('|');
    const ordering = [
      /\b(?:run|call|invoke)s? (?:one|it|them|this)\b/i,
      new RegExp(`(?:^|[.;:]\\s*)(?:then|next|afterwards?)\\b[^.;]*\\b(?:${names})\\b`, 'i'),
      new RegExp(`\\bbefore (?:${names})\\b`, 'i'),
      /\bfirst (?:use|call|run)\b|\bstep \d/i,
      /\bcheck (?:ids|it|them) with\b/i,
    ];
    for (const entry of [...listingUnder(), ...listingUnder({ SVC_TOOLSETS: 'core' })]) {
      for (const pattern of ordering) expect(entry.description, entry.name).not.toMatch(pattern);
    }
    // The check can fail: each phrase it replaced.
    for (const phrase of [
      'Run one with call_tool.',
      'Step 1 of a provider import: finds new documents. Then register_provider_resources.',
      'to review a change first use create_article_draft',
      'Check before publish_article_draft.',
      'Unknown ids also report success: check ids with list_conversations.',
    ]) {
      expect(
        ordering.some((pattern) => pattern.test(phrase)),
        phrase,
      ).toBe(true);
    }
  });
  it('fills every path parameter, query and body field from the input', () => {
    for (const tool of tools.filter((candidate) => candidate.route)) {
      const shape = objectShape(tool.input);
      const route = tool.route!;
      for (const match of route.path.matchAll(/\{(\w+)\}/g)) expect(shape, `${tool.name} path {${match[1]}}`).toHaveProperty(match[1]);
      for (const name of route.query ?? []) expect(shape, `${tool.name} query ${name}`).toHaveProperty(name);
      if (Array.isArray(route.body)) for (const name of route.body) expect(shape, `${tool.name} body ${name}`).toHaveProperty(name);
      expect(route.path.startsWith('/v2/'), tool.name).toBe(true);
    }
  });
  it('names, for every prompt, the existing tools its workflow uses', () => {
    const names = new Set(tools.map((tool) => tool.name));
    for (const prompt of catalog.flatMap((group) => group.prompts ?? [])) {
      expect(prompt.uses.length, prompt.name).toBeGreaterThan(0);
      for (const name of prompt.uses) expect(names.has(name), `${prompt.name} uses ${name}`).toBe(true);
    }
  });
  it('points every resource at an existing read tool', () => {
    for (const resource of catalog.flatMap((group) => group.resources ?? [])) {
      if (resource.text || resource.handler) continue;
      const tool = tools.find((candidate) => candidate.name === resource.tool);
      expect(tool?.scope, resource.uri).toBe('read');
    }
  });
  it('has exactly one way to run each tool, and composite handlers only for reads (the confirmation gate describes a route)', () => {
    for (const tool of tools) {
      expect(Boolean(tool.route) !== Boolean(tool.handler), tool.name).toBe(true);
      if (tool.handler) expect(tool.scope, tool.name).toBe('read');
    }
  });
  it('marks deletes destructive and only reads read-only', () => {
    for (const tool of tools) {
      if (tool.route?.method === 'DELETE') expect(tool.destructive, tool.name).toBe(true);
      if (tool.scope === 'read') expect(tool.destructive, tool.name).toBeFalsy();
    }
  });
});

describe('derived files', () => {
  it('tools/list matches the committed snapshot', () => {
    const committed = JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8'));
    expect(defaultToolList(), REGENERATE).toEqual(committed);
  });
  it('manifest.json lists exactly the catalog tools', () => {
    const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8'));
    expect(manifest.tools, REGENERATE).toEqual(manifestTools());
  });
  it('the tool table the README links is generated from the catalog', () => {
    const page = readFileSync(TOOLS_PAGE_PATH, 'utf8');
    expect(between(page, TABLE_START, TABLE_END), REGENERATE).toBe(readmeToolTable());
  });
  it('the configuration table the README links is generated from the options', () => {
    const page = readFileSync(CONFIG_PAGE_PATH, 'utf8');
    expect(between(page, CONFIG_START, CONFIG_END), REGENERATE).toBe(readmeConfigTable());
  });
  it('the README stays short and every file it links exists', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme.split('\n').length).toBeLessThan(350);
    const links = readmeLinks();
    expect(links).toEqual(expect.arrayContaining(['src/sandbox/CHOICES.md', 'tools/README.md', 'src/CONFIGURATION.md']));
    for (const link of links) expect(existsSync(path.join(ROOT, link)), link).toBe(true);
  });
  it('every file the README links ships in the npm package, so an installed README links nothing missing (test:pack checks the packed list)', () => {
    const { files } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    const links = readmeLinks();
    expect(links.length).toBeGreaterThan(5);
    for (const link of links)
      expect(
        files.some((entry) => entry === link || link.startsWith(`${entry}/`)),
        `${link} is not in package.json files`,
      ).toBe(true);
  });
});

/** The files the README links or shows, by their paths in the repository. */
function readmeLinks(): string[] {
  return [...readFileSync(README_PATH, 'utf8').matchAll(/\]\(((?!https?:|#)[^)\s]+)\)/g)].map((match) => match[1]);
}
