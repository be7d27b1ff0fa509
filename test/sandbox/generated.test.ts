/**
 * `--sandbox-conversations N`: the generated conversations (src/sandbox/generate.ts), the options
 * that turn them and the throttle on from `svc-mcp sandbox` and `svc-mcp --sandbox`, and writes to
 * generated conversations.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { parseSandboxArgs } from '../../src/sandbox/serve.js';
import type { Conversation } from '../../src/sandbox/types.js';
import { call, DAY } from './helpers.js';
import { useSandbox } from '../support/fixture.js';
import { RUN_ENV } from '../support/run-env.js';

const NOW = Date.UTC(2030, 0, 15, 12);
const generatedId = (n: number) => `c0000000-000a-4000-9000-${String(n).padStart(12, '0')}`;
const wsOf = (sb: Sandbox) => sb.state.workspaces.get(sb.seed.workspaceA)!;
/** The generated conversations, as full objects. */
const generatedOf = (sb: Sandbox) => [...wsOf(sb).conversations.values()].filter((c) => c.id.startsWith('c0000000-000a-4000-9000-'));
const latest = (c: Conversation) => Math.max(c.createdAt, ...c.events.map((e) => e.createdAt));

describe('generated conversations', () => {
  const small = useSandbox({ now: () => NOW, conversations: 500 });
  const large = useSandbox({ now: () => NOW + 1_234, conversations: 1_000 });

  it('are the same for the same N, relative to the clock at start (the first 500 of 1,000 are the 500)', () => {
    const a = generatedOf(small);
    const b = generatedOf(large).slice(0, 500);
    expect(a).toHaveLength(500);
    expect(wsOf(small).conversations.size).toBe(41 + 500);
    const shift = (c: Conversation) => JSON.parse(JSON.stringify(c).replace(/"(createdAt|externalCreatedAt)":(\d+)/g, (_, name, t) => `"${name}":${Number(t) + 1_234}`));
    expect(a.map(shift)).toEqual(b);
  });

  it('spread over the last 365 days across both agents, their channels and sources, in the past, with the recomputed resolved flag', () => {
    const all = generatedOf(large);
    const ages = all.map((c) => (NOW + 1_234 - c.createdAt) / DAY);
    expect(Math.max(...ages)).toBeLessThanOrEqual(365);
    expect(ages.filter((age) => age < 7).length).toBeGreaterThan(0);
    expect(ages.filter((age) => age > 300).length).toBeGreaterThan(0);
    const count = (test: (c: Conversation) => boolean) => all.filter(test).length / all.length;
    expect(count((c) => c.botId === large.seed.bots.storeAssistant && c.channel === 'chat')).toBeCloseTo(0.65, 1);
    expect(count((c) => c.botId === large.seed.bots.emailSupport && c.channel === 'email')).toBeCloseTo(0.35, 1);
    expect(new Set(all.map((c) => c.source))).toEqual(new Set(['widget', 'api', 'zendesk']));
    const inconsistent = all.filter((c) => {
      const svcbot = c.events.filter((e) => e.role === 'svcbot');
      const negatives = svcbot.filter((e) => e.approved === false);
      return (
        latest(c) >= NOW + 1_234 ||
        c.resolved !== (negatives.length === 0 ? null : negatives.every((e) => e.resolved === true)) ||
        c.events.some((e) => (e.approved !== null && (e.role !== 'svcbot' || e.type !== 'message')) || (e.resolved === null) !== (e.approved !== false)) ||
        c.hasFeedback !== c.events.some((e) => e.approved !== null || !!e.feedback || e.csatRating !== null) ||
        (c.status === 'Escalated to a human agent') !== svcbot.some((e) => e.type === 'silent_escalation')
      );
    });
    expect(inconsistent).toEqual([]);
    expect(count((c) => c.status === 'Escalated to a human agent')).toBeGreaterThan(0.08);
    expect(count((c) => c.events.some((e) => e.approved === true))).toBeGreaterThan(0.15);
    expect(count((c) => c.events.some((e) => e.approved === false))).toBeGreaterThan(0.02);
    expect(count((c) => c.resolved === false)).toBeGreaterThan(0);
    expect(count((c) => c.events.some((e) => e.csatRating !== null))).toBeCloseTo(0.18, 1);
    expect(new Set(all.flatMap((c) => c.events.map((e) => e.csatRating)))).toEqual(new Set([null, 0, 1, 2, 3, 4, 5]));
  });

  it('keep a rating, an answer and a deletion written through the API', async () => {
    const sb = small;
    const generated = generatedOf(sb);
    const rated = generated.find((c) => c.events.some((e) => e.approved === true))!;
    const answer = rated.events.find((e) => e.approved === true)!;
    const feedback = (body: unknown) => call(sb, 'POST', `/v2/hc-interactions/${rated.id}/feedback/public`, { body });
    const listed = async (id: string) => {
      const c = wsOf(sb).conversations.get(id);
      const query: Record<string, number> = c ? { since: c.createdAt, until: c.createdAt + 1, limit: 100 } : { limit: 100 };
      return (await call(sb, 'GET', '/v2/hc-interactions/public', { query })).body.interactions.find((x: { id: string }) => x.id === id);
    };
    expect((await feedback({ eventId: answer.id, approved: false })).status).toBe(200);
    expect(await listed(rated.id)).toMatchObject({ resolved: false, hasFeedback: true });
    expect((await listed(rated.id)).events.find((e: { id: string }) => e.id === answer.id)).toMatchObject({ approved: false, resolved: false });
    await feedback({ eventId: answer.id, approved: null });
    const cleared = await listed(rated.id);
    expect(cleared.resolved).toBe(rated.events.some((e) => e.id !== answer.id && e.approved === false) ? expect.any(Boolean) : null);

    const continued = generated[3];
    const before = continued.events.length;
    const reply = await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: { interactionId: continued.id, content: 'How do I track my package?' } });
    expect(reply.status).toBe(200);
    const around = { since: continued.createdAt - 30 * DAY, until: Math.min(continued.createdAt + 30 * DAY, NOW), limit: 1 };
    const page = await call(sb, 'GET', '/v2/hc-interactions/public', { query: around });
    expect(page.body.interactions[0].id).toBe(continued.id); // its latest event is now the newest
    expect(page.body.interactions[0].events).toHaveLength(before + 2);

    const gone = generated[5];
    expect((await call(sb, 'DELETE', `/v2/hc-interactions/${gone.id}/public`)).body).toEqual({ success: true });
    expect(wsOf(sb).conversations.has(gone.id)).toBe(false);
    const window = { since: gone.createdAt - 1, until: gone.createdAt + 1, limit: 100 };
    expect((await call(sb, 'GET', '/v2/hc-interactions/public', { query: window })).body.interactions).toEqual([]);
    expect((await call(sb, 'GET', '/v2/hc-interactions/public', { query: { cursor: gone.id } })).status).toBe(400);
    expect((await call(sb, 'POST', `/v2/hc-interactions/${gone.id}/feedback/public`, { body: { eventId: gone.events[1].id, approved: true } })).status).toBe(406);
    expect(wsOf(sb).conversations.size).toBe(41 + 500 - 1);
  });

  it('are reached by refine with their event ids', async () => {
    const c = generatedOf(small).find((x) => x.events[1].role === 'svcbot' && x.id !== generatedId(6))!;
    const other = generatedOf(small).at(-1)!; // never read: still only in columns
    const session = (id: string, eventId: string) => call(small, 'GET', `/v2/fix-review/interactions/${id}/events/${eventId}/session/public`);
    expect((await session(c.id, c.events[1].id)).status).toBe(200);
    expect((await session(c.id, other.events[1].id)).body.message).toEqual(['Event does not belong to the interaction']);
  });
});

describe('svc-mcp sandbox and --sandbox options', () => {
  it('svc-mcp sandbox takes --sandbox-conversations and --sandbox-rate-limit, or their variables, a flag winning', () => {
    expect(parseSandboxArgs(['--sandbox-conversations', '100000', '--sandbox-rate-limit=off'], {})).toEqual({ conversations: 100_000, rateLimit: 'off' });
    expect(parseSandboxArgs([], { SVC_SANDBOX_CONVERSATIONS: '10', SVC_SANDBOX_RATE_LIMIT: '5/2s' })).toEqual({ conversations: 10, rateLimit: { limit: 5, windowMs: 2_000 } });
    expect(parseSandboxArgs(['--sandbox-conversations=3'], { SVC_SANDBOX_CONVERSATIONS: '10' })).toEqual({ conversations: 3 });
    expect(() => parseSandboxArgs(['--sandbox-conversations', '-1'], {})).toThrow(/^--sandbox-conversations must be a whole number from 0 to 10000000 \(got "-1"\)$/);
    expect(() => parseSandboxArgs([], { SVC_SANDBOX_RATE_LIMIT: 'fast' })).toThrow(/^SVC_SANDBOX_RATE_LIMIT must look like N\/Ts/);
    expect(() => parseSandboxArgs(['--sandbox-rate-limit'], {})).toThrow(/^--sandbox-rate-limit needs a value$/);
    expect(() => parseSandboxArgs(['--conversations', '5'], {})).toThrow(/^Unknown option --conversations for svc-mcp sandbox \(it takes .*--sandbox-conversations N/);
  });

  it('--sandbox starts the sandbox with the generated conversations and the throttle asked for', async () => {
    const config = loadConfig(['--sandbox', '--sandbox-conversations', '250', '--sandbox-rate-limit', 'off'], RUN_ENV);
    const runtime = await createRuntime(config, createLogger('silent'));
    try {
      const sandbox = runtime.sandbox!;
      expect(wsOf(sandbox).conversations.size).toBe(41 + 250);
      const info = await call(sandbox, 'GET', '/__sandbox/info', { key: null });
      expect(info.body).toMatchObject({ rateLimit: 'off', generatedConversations: 250 });
      const statuses = await Promise.all(Array.from({ length: 120 }, () => call(sandbox, 'GET', '/v2/bots/public').then((r) => r.status)));
      expect(statuses.every((status) => status === 200)).toBe(true);
      sandbox.setRateLimit(2, 60_000);
      expect((await call(sandbox, 'GET', '/__sandbox/info', { key: null })).body.rateLimit).toEqual({ limit: 2, windowMs: 60_000, scope: 'key' });
    } finally {
      await runtime.close();
    }
  });
});
