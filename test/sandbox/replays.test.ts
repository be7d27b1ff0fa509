/** The sandbox's replays routes (src/sandbox/routes/), over raw HTTP. */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const sb = useSandbox(() => start());

describe('replays', () => {
  it('reads a replay and 404s an absent one', async () => {
    const { status, body } = await call(sb, 'GET', `/v2/replays/${sb.seed.replay}/public`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ source: 'replay', parentInteractionId: sb.seed.negativeConversation, replay: { target_event_id: sb.seed.negativeEvent, status: 'done' } });
    expect((await call(sb, 'GET', `/v2/replays/${seedId('replay', 'a', 5)}/public`)).status).toBe(404);
  });
});
