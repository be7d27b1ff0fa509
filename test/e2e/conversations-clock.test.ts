import { describe, expect, it } from 'vitest';
import { apiRequests, textOf } from '../support/harness.js';
import { useServer } from '../support/fixture.js';

const { sandbox, call } = useServer();

describe('list_conversations: relative times resolve against one clock per call', () => {
  it.each(['90d', '2160h'])('since: %s spans exactly the 90-day maximum and succeeds 10 times out of 10', async (since) => {
    for (let attempt = 0; attempt < 10; attempt++) {
      sandbox.clearRequests();
      const result = await call('list_conversations', { since, limit: 1 });
      expect(result.isError, textOf(result)).toBeFalsy();
      const [request] = apiRequests(sandbox);
      expect(Number(request.query.until) - Number(request.query.since)).toBe(90 * 86_400_000);
    }
  });
});
