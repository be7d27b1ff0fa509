import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findTools } from '../../src/engine/gateway.js';
import { rankTools } from '../../src/engine/ranking.js';
import { toolListEntry } from '../../src/engine/listing.js';
import { catalog } from '../../tools/index.js';

const tools = catalog.flatMap((group) => group.tools);
const known = new Set(tools.map((tool) => tool.name));

/** Requests as support engineers type them, each with the tool that serves it: `tool: request` per line, `#` comments. */
function requestsOf(file: string): Array<{ tool: string; request: string }> {
  return readFileSync(new URL(file, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => {
      const [, tool, request] = /^([a-z_]+): (.+)$/.exec(line) ?? [];
      if (!tool) throw new Error(`${file}: not "tool: request": ${line}`);
      return { tool, request };
    });
}

const halves = {
  tuning: requestsOf('./find-tools.tuning.txt'),
  /** Never tuned on: its figure is the one that counts. */
  heldOut: requestsOf('./find-tools.held-out.txt'),
};

/** The share of requests whose tool ranks in the top 3, and the misses. */
function topThree(requests: Array<{ tool: string; request: string }>) {
  const misses: string[] = [];
  for (const { tool, request } of requests) {
    const top = rankTools(catalog, request, tools)
      .slice(0, 3)
      .map((candidate) => candidate.name);
    if (!top.includes(tool)) misses.push(`${tool} <- "${request}" got ${top.join(', ') || 'nothing'}`);
  }
  return { share: (requests.length - misses.length) / requests.length, hits: requests.length - misses.length, misses };
}

describe('find_tools ranking', () => {
  it('has at least 150 requests, three or more per tool, none naming its tool', () => {
    const all = [...halves.tuning, ...halves.heldOut];
    expect(all.length).toBeGreaterThanOrEqual(150);
    for (const { tool, request } of all) {
      expect(known.has(tool), `unknown tool ${tool}`).toBe(true);
      expect(request.toLowerCase(), tool).not.toContain(tool);
      expect(request.toLowerCase(), tool).not.toContain(tool.replaceAll('_', ' '));
    }
    for (const tool of known) expect(all.filter((entry) => entry.tool === tool).length, tool).toBeGreaterThanOrEqual(3);
  });

  it('ranks the right tool in the top 3 for at least 90% of the held-out requests', () => {
    const tuning = topThree(halves.tuning);
    const heldOut = topThree(halves.heldOut);
    const figure = (name: string, result: ReturnType<typeof topThree>, count: number) => `${name} ${result.hits}/${count} (${(result.share * 100).toFixed(1)}%)`;
    console.log(`find_tools top-3: ${figure('tuning', tuning, halves.tuning.length)}, ${figure('held-out', heldOut, halves.heldOut.length)}`);
    expect(tuning.share, `tuning misses:\n  ${tuning.misses.join('\n  ')}`).toBeGreaterThanOrEqual(0.9);
    // Only the figure: whoever reads the held-out misses tunes on them.
    expect(heldOut.share, `held-out ${heldOut.hits}/${halves.heldOut.length}`).toBeGreaterThanOrEqual(0.9);
  });

  it('names the tools that give the ids a match needs, among those the session reaches', () => {
    const found = (reachable: typeof tools) => {
      const result = findTools({ query: 'put an article into another folder' }, catalog, reachable, (tool) => toolListEntry(tool, { confirm: 'writes' }, true), false);
      return { text: (result.content[0] as { text: string }).text, tools: result.structuredContent!.tools as Array<{ name: string; needs?: string[] }> };
    };
    const everything = found(tools);
    expect(everything.tools.find((tool) => tool.name === 'move_article')?.needs).toEqual(['list_articles', 'list_folders']);
    expect(everything.text).toContain('ids from: list_articles, list_folders');
    const withoutFolders = found(tools.filter((tool) => tool.name !== 'list_folders'));
    expect(withoutFolders.tools.find((tool) => tool.name === 'move_article')?.needs).toEqual(['list_articles']);
  });
});
