/**
 * The MCP Apps views (the `io.modelcontextprotocol/ui` extension). Each is one self-contained HTML
 * page built with esbuild from src/views/<name>/main.ts: script, styles and chart library inline.
 */
export const VIEWS = {
  stats: { title: 'Conversation statistics view', description: 'Charts and tables of conversation_stats; picking a group lists its thumbs-down answers.' },
  review: { title: 'Review view', description: 'Side-by-side diff of compare_article_draft or compare_rule_versions, with the stale warning and a confirmed Publish.' },
} as const;

export type ViewName = keyof typeof VIEWS;
