/** The sandbox's tags routes (src/sandbox/routes/), over raw HTTP. */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const sb = useSandbox(() => start());

describe('tags', () => {
  const post = (id: string, body: unknown) => call(sb, 'POST', `/v2/tag-groups/${id}/tags/public`, { body });
  it('creates a tag with 201', async () => {
    const res = await post(sb.seed.tagGroups.topics, { tagName: 'sizing', tagDescription: 'Size and fit' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tagGroupId: sb.seed.tagGroups.topics, tagName: 'sizing', tagDescription: 'Size and fit' });
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'tagDescription', 'tagGroupId', 'tagName']);
  });
  it('rejects an empty tagName (400) and answers 500 for an unknown group', async () => {
    expect((await post(sb.seed.tagGroups.topics, { tagName: '  ' })).body.message).toContain('tagName should not be empty');
    expect((await post(sb.seed.tagGroups.topics, {})).status).toBe(400);
    expect((await post(seedId('tagGroup', 'a', 9), { tagName: 'x' })).status).toBe(500);
    expect((await post(sb.seed.tagGroups.system, { tagName: 'x' })).status).toBe(500);
  });
});
