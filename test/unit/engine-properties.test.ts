import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { objectShape } from '../../src/engine/inputs.js';
import { validateInput } from '../../src/engine/pipeline.js';
import { buildRequest, pathSegmentProblem } from '../../src/engine/request.js';
import { catalog } from '../../tools/index.js';

const tools = catalog.flatMap((group) => group.tools);

describe('engine properties over the whole catalog', () => {
  it('answers any input of any tool with a value or a field-naming message, never a throw', () => {
    const argsFor = (tool: (typeof tools)[number]) => {
      const fields = [...Object.keys(objectShape(tool.input)), 'unexpected'];
      return fc.dictionary(fc.constantFrom(...fields), fc.anything({ maxDepth: 3 }));
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...tools).chain((tool) => fc.tuple(fc.constant(tool), argsFor(tool))),
        ([tool, args]) => {
          const result = validateInput(tool, args, {});
          if (result.ok) return typeof result.value === 'object';
          // Every line names the field (its first path segment is an input field) and the rule.
          const fields = new Set([...Object.keys(objectShape(tool.input)), 'unexpected']);
          return result.message.split('\n').every((line) => {
            const match = /^- ([A-Za-z]\w*)[^\n]*?: \S/.exec(line);
            return match !== null && fields.has(match[1]);
          });
        },
      ),
      { numRuns: 3000 },
    );
  }, 20_000);

  it('keeps any id inside its own path segment', () => {
    const routed = tools.filter((tool) => tool.route?.path.includes('{'));
    fc.assert(
      fc.property(fc.constantFrom(...routed), fc.string({ minLength: 1, maxLength: 40 }), (tool, id) => {
        // Dot segments, blank and unencodable ids are refused before sending (test/hardening covers them).
        fc.pre(pathSegmentProblem(id) === undefined);
        const names = [...tool.route!.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        const input = Object.fromEntries(names.map((name) => [name, id]));
        const { path } = buildRequest(tool, input);
        const segments = path.split('/');
        const template = tool.route!.path.split('/');
        expect(segments).toHaveLength(template.length);
        template.forEach((part, index) => {
          if (part.startsWith('{')) expect(decodeURIComponent(segments[index])).toBe(id);
          else expect(segments[index]).toBe(part);
        });
      }),
      { numRuns: 500 },
    );
  });
});
