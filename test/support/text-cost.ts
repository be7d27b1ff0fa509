/**
 * What a result's text costs against the raw JSON of the same data, for the most used results:
 * `npx tsx test/support/text-cost.ts` prints the table (tool, text chars, raw JSON chars, ratio).
 * Raw JSON is the API's own response body for a one-route tool, and the structured result for a
 * composite one (it has no single response).
 */
import { SEED, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { connect, sandboxEnv, textOf, type Connection } from './harness.js';

interface Measured {
  tool: string;
  text: number;
  raw: number;
}

/** The most used results: each tool with typical arguments and the API request behind it, when there is one. */
export const MOST_USED: Array<{ tool: string; args: Record<string, unknown>; raw?: { method: 'GET' | 'POST'; path: string; body?: unknown } }> = [
  { tool: 'list_agents', args: {}, raw: { method: 'GET', path: '/v2/bots/public' } },
  { tool: 'list_conversations', args: { limit: 20 }, raw: { method: 'GET', path: '/v2/hc-interactions/public?limit=20' } },
  { tool: 'export_conversations', args: { since: '30d', maxConversations: 20 } },
  { tool: 'conversation_stats', args: { since: '30d' } },
  { tool: 'generate_answer', args: { botId: SEED.bots.storeAssistant, content: 'How long does shipping take?' } },
  { tool: 'list_articles', args: {}, raw: { method: 'GET', path: '/v2/hc-articles/public' } },
  { tool: 'get_articles', args: { articleIds: [SEED.articles.returnsPolicy] }, raw: { method: 'POST', path: '/v2/hc-articles/ids/public', body: { articleIds: [SEED.articles.returnsPolicy] } } },
  { tool: 'compare_article_draft', args: { draftArticleId: SEED.articles.returnsPolicyDraft } },
  { tool: 'list_folders', args: {}, raw: { method: 'GET', path: '/v2/hc-folders/public' } },
  { tool: 'list_actions', args: {}, raw: { method: 'GET', path: '/v2/hc-tools/public' } },
  { tool: 'get_source', args: { sourceId: SEED.sources.webCompleted }, raw: { method: 'GET', path: `/v2/documents/public/${SEED.sources.webCompleted}` } },
  { tool: 'get_refine_session', args: { interactionId: SEED.negativeConversation, eventId: SEED.negativeEvent } },
];

async function rawJson(sandbox: Sandbox, request: NonNullable<(typeof MOST_USED)[number]['raw']>): Promise<string> {
  const response = await fetch(`${sandbox.url}${request.path}`, {
    method: request.method,
    headers: { authorization: `Bearer ${sandbox.keys.admin}`, 'content-type': 'application/json' },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  return response.text();
}

/** Text and raw JSON sizes of one call, as the server answers it under SVC_CONFIRM=none (no preview). */
export async function measure(sandbox: Sandbox, connection: Connection, entry: (typeof MOST_USED)[number]): Promise<Measured> {
  const result = await connection.call(entry.tool, entry.args);
  if (result.isError) throw new Error(`${entry.tool}: ${textOf(result)}`);
  const raw = entry.raw ? await rawJson(sandbox, entry.raw) : JSON.stringify(result.structuredContent);
  return { tool: entry.tool, text: textOf(result).length, raw: raw.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sandbox = await startSandbox();
  const connection = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'none', SVC_LOG_LEVEL: 'silent' }) });
  const rows: Measured[] = [];
  for (const entry of MOST_USED) rows.push(await measure(sandbox, connection, entry));
  console.log('| tool | text chars | raw JSON chars | ratio |\n|---|---:|---:|---:|');
  for (const row of rows) console.log(`| ${row.tool} | ${row.text} | ${row.raw} | ${(row.text / row.raw).toFixed(2)} |`);
  await connection.close();
  await sandbox.close();
}
