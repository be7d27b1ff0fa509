/** The guide (tools/guide.ts): the svc://guide resource every session serves. */
import { describe, expect, it } from 'vitest';
import { useServer } from '../support/fixture.js';

const { server } = useServer();

describe('guide', () => {
  it('serves the guide resource', async () => {
    const guide = await server.client.readResource({ uri: 'svc://guide' });
    expect((guide.contents[0] as { text: string }).text).toContain('Ids and where they come from');
  });
});
