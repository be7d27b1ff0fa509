import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { toolListing } from '../../src/engine/listing.js';
import { catalog } from '../../tools/index.js';
import { BUDGETS, costOf, largest, listingUnder } from '../support/context-cost.js';

/** Design section 9: what tools/list costs every user on every turn, measured as bytes/4. */
describe('context budget of tools/list', () => {
  it(`names, descriptions and input schemas of the whole catalog stay within ${BUDGETS.catalog} tokens (client without elicitation)`, () => {
    const cost = costOf(listingUnder());
    expect(cost.surface, `${cost.surface} tokens; the largest tools:\n${largest(cost)}`).toBeLessThanOrEqual(BUDGETS.catalog);
  });

  it(`the whole payload stays within ${BUDGETS.payload} tokens`, () => {
    const cost = costOf(listingUnder());
    expect(cost.payload, `${cost.payload} tokens; the largest entries:\n${largest(cost, 'entry')}`).toBeLessThanOrEqual(BUDGETS.payload);
  });

  it(`the core surface stays within ${BUDGETS.core} tokens`, () => {
    const cost = costOf(listingUnder({ SVC_TOOLSETS: 'core' }));
    expect(cost.surface, `${cost.surface} tokens; the largest tools:\n${largest(cost)}`).toBeLessThanOrEqual(BUDGETS.core);
  });

  it("says each title once: the tool's title, never again in its annotations", () => {
    for (const tool of [...listingUnder(), ...listingUnder({ SVC_TOOLSETS: 'core' })]) {
      expect(tool.title, tool.name).toEqual(expect.any(String));
      expect(tool.annotations ?? {}, tool.name).not.toHaveProperty('title');
    }
  });

  it('lists confirm and drops output schemas only where confirmation goes by token', () => {
    const withoutElicitation = listingUnder();
    const withElicitation = listingUnder({}, true);
    const automation = listingUnder({ SVC_CONFIRM: 'none' });
    const confirmable = withoutElicitation.filter((tool) => 'confirm' in (tool.inputSchema.properties ?? {}));
    expect(confirmable.length).toBeGreaterThan(0);
    for (const tool of confirmable) expect(tool.outputSchema, tool.name).toBeUndefined();
    for (const tool of [...withElicitation, ...automation]) expect(tool.inputSchema.properties ?? {}, tool.name).not.toHaveProperty('confirm');
    expect(costOf(withElicitation).output).toBeGreaterThanOrEqual(costOf(withoutElicitation).output);
  });

  it('computes a listing once per configuration and elicitation, and shares it across sessions', () => {
    const config = loadConfig(['--sandbox'], {});
    expect(toolListing(catalog, config, false)).toBe(toolListing(catalog, config, false));
    expect(toolListing(catalog, config, true)).toBe(toolListing(catalog, config, true));
    expect(toolListing(catalog, config, true)).not.toBe(toolListing(catalog, config, false));
  });
});
