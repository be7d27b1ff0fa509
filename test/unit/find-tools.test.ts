import { describe, expect, it } from 'vitest';
import { rankTools } from '../../src/engine/gateway.js';
import { catalog } from '../../tools/index.js';

const tools = catalog.flatMap((group) => group.tools);
const known = new Set(tools.map((tool) => tool.name));

/**
 * What support engineers and triage agents actually ask, each with the tool that serves it. None
 * names its tool. Requests for tools that arrive on other branches count once those tools exist.
 */
const REQUESTS: Array<[request: string, tool: string]> = [
  ['Which AI agents do we have in this workspace?', 'list_agents'],
  ['What bots are set up and which channels do they cover?', 'list_agents'],
  ["Show me yesterday's chats for the billing bot", 'list_conversations'],
  ['Find conversations where customers asked about invoices', 'list_conversations'],
  ['Get the next page of conversations after this cursor', 'list_conversations'],
  ['Pull every conversation of the last six months that got a thumbs down', 'export_conversations'],
  ['Download the whole conversation history of Q1 to a file', 'export_conversations'],
  ['Triage the negatively rated answers from last week', 'export_conversations'],
  ['How many conversations did each agent handle per week?', 'conversation_stats'],
  ['Count chats by channel for the last 30 days', 'conversation_stats'],
  ['Ask the support bot how to reset a password and see what it answers', 'generate_answer'],
  ['Send a test message to the agent as a customer would', 'generate_answer'],
  ['Mark that answer as bad', 'give_feedback'],
  ['Give a thumbs up to the reply the bot sent in this conversation', 'give_feedback'],
  ['The customer asked for erasure: remove their conversation permanently', 'delete_conversation'],
  ['Which documents in our connected wiki have not been imported yet?', 'list_provider_resources'],
  ['Register the discovered helpcenter pages as sources', 'register_provider_resources'],
  ['Crawl our docs website and collect the page links', 'crawl_links'],
  ['Import these web page URLs as knowledge for the bot', 'ingest_sources'],
  ['Has the document I imported finished processing, or did it fail?', 'get_source'],
  ['Wait until all the imports are finished', 'wait_for_sources'],
  ['Propose a folder structure for the processed sources', 'initialize_knowledge_tree'],
  ['Save the proposed knowledge tree', 'persist_knowledge_tree'],
  ['Turn this processed source into a draft article', 'generate_knowledge'],
  ['Write draft articles from all twenty processed sources in one go', 'generate_knowledge_bulk'],
  ['Are the article generation jobs done yet?', 'get_knowledge_jobs_status'],
  ['Show the draft articles waiting for review', 'list_articles'],
  ['Read the full text of these two articles', 'get_articles'],
  ['Write a new help article about our refund policy', 'create_article'],
  ['Fix the typo in the shipping article right away, no review needed', 'update_article'],
  ['Prepare a revision of the live returns article for review', 'create_article_draft'],
  ['The reviewed draft looks good: make it live', 'publish_article_draft'],
  ['What changed between this draft and the live article?', 'compare_article_draft'],
  ['Move the pricing article into the Billing folder', 'move_article'],
  ['Delete the outdated article about the old app', 'delete_article'],
  ['Show the knowledge base folder tree', 'list_folders'],
  ['Make a new folder for onboarding documentation', 'create_folder'],
  ['Rename the FAQ folder to Help', 'update_folder'],
  ['Put the Legal folder under Policies', 'move_folder'],
  ['Remove the empty archive folder', 'delete_folder'],
  ['Let the sales bot answer from the pricing folder', 'assign_folders_to_agent'],
  ['Which attributes and actions are configured?', 'list_actions'],
  ["Create an attribute that fetches the customer's plan", 'create_action'],
  ['Change the input and output fields of the order lookup action', 'update_action'],
  ['Add an API call step that fetches the order status from our backend', 'add_data_step'],
  ['Enable the order lookup attribute for the support bot on chat', 'assign_action_to_agents'],
  ['Try the order lookup with a sample order id and show what comes back', 'test_action'],
  ['Check that one HTTP step works before saving it', 'test_data_step'],
  ['Show the version history of the refund intent rule', 'list_rule_versions'],
  ['Open version v3 of this rule and show its flow', 'get_rule_version'],
  ['Diff the active rule version against the previous one', 'compare_rule_versions'],
  ['Show the replay that re-ran this answer', 'get_replay'],
  ['What fix did the review propose for this poor answer?', 'get_refine_session'],
  ['Wait until the fix review of this answer is ready', 'wait_for_refine_session'],
  ['Attach these test cases to the criteria group', 'add_cases_to_criteria_group'],
  ['Kick off the regression test set run', 'start_test_set_run'],
  ['Add a "refund" label to our custom tag group', 'create_tag'],
];

describe('find_tools ranking', () => {
  const asked = REQUESTS.filter(([, tool]) => known.has(tool));

  it('never names the tool in its request', () => {
    for (const [request, tool] of REQUESTS) expect(request.toLowerCase(), tool).not.toContain(tool);
  });

  it('ranks the right tool in the top 3 for at least 90% of at least 40 requests', () => {
    const misses: string[] = [];
    for (const [request, tool] of asked) {
      const top = rankTools(catalog, request, tools).slice(0, 3).map((candidate) => candidate.name);
      if (!top.includes(tool)) misses.push(`${tool} <- "${request}" got ${top.join(', ') || 'nothing'}`);
    }
    const share = (asked.length - misses.length) / asked.length;
    console.log(`find_tools top-3: ${asked.length - misses.length}/${asked.length} (${(share * 100).toFixed(1)}%)${misses.length ? `; misses:\n  ${misses.join('\n  ')}` : ''}`);
    expect(asked.length).toBeGreaterThanOrEqual(40);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });
});
