/** The sandbox's refine routes (src/sandbox/routes/), over raw HTTP. */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { call, start, sandboxControl, skewedClock } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const STEP_MS = 60_000;
/** The sandbox's clock runs this far ahead of real time: a test moves it on instead of sleeping. */
const { now, advance } = skewedClock();
const sb = useSandbox(() => start({ refineTimings: { stepMs: STEP_MS }, now }));
const control = sandboxControl(sb);

describe('refine sessions', () => {
  const path = (c: string, e: string) => `/v2/fix-review/interactions/${c}/events/${e}/session/public`;
  const conv = (n: number) => seedId('conversation', 'a', n);
  const ev = (n: number, k: number) => `e0000000-000a-4000-8${String(n).padStart(3, '0')}-${String(k).padStart(12, '0')}`;

  it('reads the seeded active session with latestIteration = iterations[0]', async () => {
    const { status, body } = await call(sb, 'GET', path(sb.seed.negativeConversation, sb.seed.negativeEvent));
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'active', targetUserEventId: sb.seed.negativeUserEvent });
    expect(body.latestIteration).toEqual(body.iterations[0]);
  });

  it('returns JSON null when the answer has no active session', async () => {
    const res = await fetch(sb.url + path(conv(2), ev(2, 2)), { headers: { authorization: `Bearer ${sb.keys.admin}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('null');
  });

  it('rejects events outside the conversation, not svcbot, or without a linked user event (400), and absent ones (404)', async () => {
    expect((await call(sb, 'GET', path(conv(2), ev(3, 2)))).status).toBe(400);
    expect((await call(sb, 'GET', path(conv(2), ev(2, 1)))).status).toBe(400);
    const lone = await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: { botId: sb.seed.bots.storeAssistant, role: 'svcbot', content: 'Hello from the agent' } });
    expect((await call(sb, 'GET', path(lone.body[0].interactionId, lone.body[0].id))).body.message).toEqual(['Event has no linked user event']);
    expect((await call(sb, 'GET', path(seedId('conversation', 'a', 999), ev(2, 2)))).status).toBe(404);
    expect((await call(sb, 'GET', path(conv(2), ev(2, 99)))).status).toBe(404);
    expect((await call(sb, 'GET', path(sb.seed.globexConversation, 'x'))).status).toBe(403);
  });

  it.each(['ready', 'no_change', 'failed'] as const)('moves a new iteration through queued, generating_changes, replaying to %s', async (outcome) => {
    const n = { ready: 4, no_change: 7, failed: 9 }[outcome];
    const started = await control('POST', '/__sandbox/refine', { interactionId: conv(n), eventId: ev(n, 2), outcome });
    expect(started.status).toBe(201);
    expect(started.body.latestIteration).toMatchObject({ status: 'queued', iterationNumber: 1, changes: [] });
    const seen: string[] = [];
    for (let i = 0; i < 40 && !['ready', 'no_change', 'failed'].includes(seen.at(-1) ?? ''); i++) {
      const { body } = await call(sb, 'GET', path(conv(n), ev(n, 2)));
      if (seen.at(-1) !== body.latestIteration.status) seen.push(body.latestIteration.status);
      advance(STEP_MS);
    }
    expect(seen).toEqual(['queued', 'generating_changes', 'replaying', outcome]);
    const { body } = await call(sb, 'GET', path(conv(n), ev(n, 2)));
    const it = body.latestIteration;
    if (outcome === 'ready') {
      expect(it.changes).toHaveLength(1);
      expect(it.changes[0].rootCause).toMatchObject({ failureStage: expect.any(String), target: { kind: expect.any(String) } });
      expect(it.confidence).toBe('medium');
      expect((await call(sb, 'GET', `/v2/replays/${it.replayInteractionId}/public`)).status).toBe(200);
    } else if (outcome === 'no_change') {
      expect(it).toMatchObject({ changes: [], confidence: 'low', error: null });
    } else {
      expect(it.error).toEqual(expect.any(String));
    }
    expect(it.completedAt).toEqual(expect.any(String));
  });

  it('a second start adds an iteration and supersedes the previous one', async () => {
    const again = await control('POST', '/__sandbox/refine', { interactionId: conv(4), eventId: ev(4, 2), outcome: 'no_change' });
    expect(again.body.iterations.map((i: { iterationNumber: number; status: string }) => [i.iterationNumber, i.status])).toEqual([
      [2, 'queued'],
      [1, 'superseded'],
    ]);
    expect(again.body.latestIteration.previousIterationId).toBe(again.body.iterations[1].id);
    expect((await control('POST', '/__sandbox/refine', { interactionId: conv(2), eventId: ev(2, 1) })).status).toBe(400);
  });
});
