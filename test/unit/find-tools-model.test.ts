import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rankTools } from '../../src/engine/ranking.js';
import { catalog } from '../../tools/index.js';

/**
 * The ranking's general rules, each over every tool or group it applies to: a request that differs
 * from the catalog's words only by a slip, a product name, a URL or a question should reach the
 * same tools. The requests people type are measured by find-tools.test.ts.
 */
const tools = catalog.flatMap((group) => group.tools);
const ranked = (query: string) => rankTools(catalog, query, tools).map((tool) => tool.name);

/** Two inner letters of every longer word swapped ("folder" to "fodler"); short words stay. */
function mistyped(text: string, at: number): string {
  return text.replace(/[a-z]{6,}/gi, (word) => {
    const i = 1 + (at % (word.length - 3));
    return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  });
}

describe('find_tools ranking rules', () => {
  it('finds a tool by its title with its longer words mistyped, as by the title itself', () => {
    fc.assert(
      fc.property(fc.constantFrom(...tools), fc.nat(), (tool, at) => {
        const typed = mistyped(tool.title, at);
        fc.pre(typed !== tool.title);
        expect(ranked(typed).slice(0, 3), typed).toContain(tool.name);
      }),
      { numRuns: 300 },
    );
  });

  it("ranks a group's alias the catalog never uses (a product name) as the word it stands for", () => {
    const known = new Set(tools.flatMap((tool) => `${tool.name} ${tool.title} ${tool.words ?? ''} ${tool.description}`.toLowerCase().split(/[^a-z]+/)));
    const aliases = catalog.flatMap((group) => Object.entries(group.aliases ?? {})).filter(([word]) => !known.has(word));
    expect(aliases.map(([word]) => word)).toEqual(expect.arrayContaining(['confluence', 'zendesk', 'notion', 'dropbox', 'convo']));
    for (const [word, meaning] of aliases) expect(ranked(`what ${word} documents can we import`), word).toEqual(ranked(`what ${meaning} documents can we import`));
  });

  it('ranks the list tool of a group first for a question about what the group holds', () => {
    const lists = tools.filter((tool) => tool.name.startsWith('list_') && tools.some((other) => other.group === tool.group && other.scope === 'write'));
    expect(lists.length).toBeGreaterThanOrEqual(4);
    for (const list of lists) expect(ranked(`which ${list.group} are there right now?`)[0], list.group).toBe(list.name);
  });

  it('reads a web address or an API path as a URL, whatever words it holds', () => {
    for (const address of ['https://help.example.com/articles/refund-policy', 'docs.example.com', '/v2/accounts/{id}/folders']) {
      expect(ranked(`import ${address} as knowledge`), address).toEqual(ranked('import url as knowledge'));
    }
    expect(ranked('make the plan attribute call GET /v2/accounts/{id}/folders')).toEqual(ranked('make the plan attribute call http url'));
  });
});
