import { describe, expect, it } from 'vitest';
import { lineDiff, listChanges, pathDiff, wordChanges } from '../../tools/diff.js';

describe('pathDiff', () => {
  it('names each changed field by its path, flowConfig included, and line-diffs multi-line strings', () => {
    const before = { name: 'Where is my order', flowConfig: { type: 'flow', steps: [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'Ask for the order.\nShare tracking.' }] } };
    const after = { name: 'Where is my order', flowConfig: { type: 'flow', steps: [{ prompt: 'a' }, { prompt: 'B' }, { prompt: 'Ask for the order.\nOffer a trace.' }, { prompt: 'new' }] }, botIds: ['x'] };
    const changes = pathDiff(before, after);
    expect(changes.map((change) => [change.path, change.change])).toEqual([
      ['flowConfig.steps[1].prompt', 'changed'],
      ['flowConfig.steps[2].prompt', 'changed'],
      ['flowConfig.steps[3]', 'added'],
      ['botIds', 'added'],
    ]);
    expect(changes[0]).toMatchObject({ before: 'b', after: 'B' });
    expect(changes[1].hunks?.[0].lines).toEqual([
      { mark: ' ', text: 'Ask for the order.', oldLine: 1, newLine: 1 },
      { mark: '-', text: 'Share tracking.', oldLine: 2 },
      { mark: '+', text: 'Offer a trace.', newLine: 2 },
    ]);
    expect(pathDiff(before, structuredClone(before))).toEqual([]);
  });
});

describe('text and list diffs', () => {
  it('numbers the lines of each side and finds a changed word in a long line', () => {
    const hunks = lineDiff('one\ntwo\nthree\nfour', 'one\ntwo\n3\nfour\nfive');
    expect(hunks).toHaveLength(1);
    expect(hunks[0].lines.filter((line) => line.mark !== ' ')).toEqual([
      { mark: '-', text: 'three', oldLine: 3 },
      { mark: '+', text: '3', newLine: 3 },
      { mark: '+', text: 'five', newLine: 5 },
    ]);
    expect(wordChanges('Return it within 30 days of delivery for a refund.', 'Return it within 45 days of delivery for a refund.')).toEqual([
      { before: 'Return it within 30 days of delivery', after: 'Return it within 45 days of delivery' },
    ]);
  });

  it('counts reordered list items as neither added nor removed', () => {
    expect(listChanges(['a', 'b', 'c'], ['c', 'a', 'd'])).toEqual({ added: ['d'], removed: ['b'] });
  });
});
