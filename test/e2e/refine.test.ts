/**
 * The refine tools (tools/refine.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { apiRequests, callAsTask, callsEnded, textOf, waitFor } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';
import { expectListing, expectNothingSecret, expectRefused, resultLog } from '../support/tool-checks.js';

/**
 * How long each stage of a refine session lasts. The wait polls at once, then after 1 s and 2.5 s
 * more: stages of 800 ms let it see the first stage, one in between and the end even when its first
 * poll comes up to 800 ms late on a busy machine (with 400 ms, 200 ms late already lost a stage).
 */
const STEP_MS = 800;

const conv = (n: number) => seedId('conversation', 'a', n);
const botEvent = (n: number) => `e0000000-000a-4000-8${String(n).padStart(3, '0')}-000000000002`;

const log = resultLog();
const { sandbox, server, call } = useServer({ sandbox: { refineTimings: { stepMs: STEP_MS } }, env: { SVC_CONFIRM: 'none' }, onResult: log.keep });

async function startRefine(n: number, outcome: string, stepMs = STEP_MS) {
  const res = await fetch(`${sandbox.url}/__sandbox/refine`, { method: 'POST', body: JSON.stringify({ interactionId: conv(n), eventId: botEvent(n), outcome, stepMs }) });
  expect(res.status).toBe(201);
}

describe('tools/list', () => {
  it('lists get_refine_session and wait_for_refine_session as reads, an output schema on the documented result, and task support for the wait', async () => {
    await expectListing(server, {
      tools: ['get_refine_session', 'wait_for_refine_session'],
      reads: ['get_refine_session', 'wait_for_refine_session'],
      outputs: ['get_refine_session'],
      tasks: ['wait_for_refine_session'],
    });
  });
});

describe('each tool reaches its route', () => {
  it('get_refine_session: reads a refine session', async () => {
    const session = structured(await call('get_refine_session', { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent }));
    expect(session).toMatchObject({ active: true, status: 'active' });
    expect(textOf(await call('get_refine_session', { interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent }))).toContain('untrusted-data');
    expect(apiRequests(sandbox).map((request) => `${request.method} ${request.path}`)).toEqual([
      // Each session read also reads its proposed draft and the live article, to show the diff.
      ...Array.from({ length: 2 }, () => [
        `GET /v2/fix-review/interactions/${sandbox.seed.negativeConversation}/events/${sandbox.seed.negativeEvent}/session/public`,
        'POST /v2/hc-articles/ids/public',
        'POST /v2/hc-articles/ids/public',
      ]).flat(),
    ]);
  });
});

describe('documented rules are refused before sending', () => {
  it('names the field and sends nothing', async () => {
    await expectRefused(call, sandbox, [
      ['get_refine_session', { interactionId: 'c', eventId: '' }, 'eventId: must not be empty'],
      ['wait_for_refine_session', { interactionId: 'c', eventId: 'e', timeoutSeconds: 0 }, 'timeoutSeconds: must be from 1 to 3600'],
    ]);
  });
});

describe('errors explained', () => {
  it('explains an event that is not an agent answer', async () => {
    const refine = await call('get_refine_session', { interactionId: conv(2), eventId: `e0000000-000a-4000-8002-000000000001` });
    expect(textOf(refine)).toContain('must be an agent (svcbot) answer');
  });

  it('get_refine_session, wait_for_refine_session: explain a null refine session in a normal result', async () => {
    const result = await call('get_refine_session', { interactionId: conv(3), eventId: botEvent(3) });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ active: false });
    expect(textOf(result)).toContain('No active refine session');
    const waited = structured(await call('wait_for_refine_session', { interactionId: conv(3), eventId: botEvent(3) }));
    expect(waited).toMatchObject({ finished: true, active: false });
  });
});

describe('wait_for_refine_session', () => {
  it('ends on each terminal status after polling intermediate ones, with progress', async () => {
    const outcomes = { ready: 4, no_change: 7, failed: 9 } as const;
    await Promise.all(Object.entries(outcomes).map(([outcome, n]) => startRefine(n, outcome)));
    const runs = await Promise.all(
      Object.entries(outcomes).map(async ([outcome, n]) => {
        const progress: Array<{ progress: number; message?: string }> = [];
        const result = await call(
          'wait_for_refine_session',
          { interactionId: conv(n), eventId: botEvent(n) },
          {
            onprogress: (update) => progress.push(update),
          },
        );
        return { outcome, result, progress };
      }),
    );
    for (const { outcome, result, progress } of runs) {
      const summary = structured(result);
      expect(summary).toMatchObject({ finished: true, status: outcome, iterationNumber: 1 });
      expect(summary.polls).toBeGreaterThanOrEqual(3);
      const messages = progress.map((update) => update.message ?? '');
      // The SDK client handles notifications a microtask after responses, so the terminal notification may race the result.
      expect(messages.length).toBeGreaterThanOrEqual(2);
      expect(messages[0]).toContain('queued');
      expect(messages.slice(1).some((message) => /generating_changes|replaying/.test(message))).toBe(true);
      expect(messages.every((message) => new RegExp(`queued|generating_changes|replaying|${outcome}`).test(message))).toBe(true);
      const values = progress.map((update) => update.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      if (outcome === 'ready') {
        expect(summary.rootCause).toMatchObject({ failureStage: expect.any(String), target: { kind: expect.any(String) } });
        expect(summary.changes[0]).toMatchObject({ changeType: expect.stringMatching(/update_article|update_prompt/) });
        expect(summary.confidence).toBe('medium');
        expect(textOf(result)).toContain('untrusted-data');
      }
      if (outcome === 'failed') expect(summary.error).toEqual(expect.any(String));
      if (outcome === 'no_change') expect(summary.changes).toBeUndefined();
    }
  }, 20_000);

  it('runs as an MCP task', async () => {
    await startRefine(10, 'ready');
    const { kinds, result: final } = await callAsTask(server.client, 'wait_for_refine_session', { interactionId: conv(10), eventId: botEvent(10) });
    expect(kinds[0]).toBe('taskCreated');
    expect(final?.isError).toBeFalsy();
    expect(final?.structuredContent).toMatchObject({ finished: true, status: 'ready', iterationNumber: 1 });
    const polls = apiRequests(sandbox).filter((request) => request.path.includes(conv(10)));
    expect(polls.length).toBeGreaterThanOrEqual(2);
  }, 20_000);

  it('times out saying the last status seen', async () => {
    await startRefine(14, 'ready', 60_000);
    const result = await call('wait_for_refine_session', { interactionId: conv(14), eventId: botEvent(14), timeoutSeconds: 1 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ finished: false, status: 'timed_out', lastStatus: 'queued', iterationNumber: 1 });
    expect(textOf(result).split('\n')[0]).toMatch(/^INCOMPLETE: Still running after [\d.]+s; last status seen: queued \(iteration 1\)\. Call wait_for_refine_session again/);
  }, 10_000);

  it('stops polling when the call is cancelled', async () => {
    await startRefine(16, 'ready', 60_000);
    const polls = () => apiRequests(sandbox).filter((request) => request.path.includes(conv(16))).length;
    const ended = callsEnded(server, 'wait_for_refine_session');
    const controller = new AbortController();
    const pending = call('wait_for_refine_session', { interactionId: conv(16), eventId: botEvent(16) }, { signal: controller.signal });
    await waitFor(() => polls() >= 1, 'the first poll');
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The poll loop has returned: nothing more can be sent for this call.
    await waitFor(() => callsEnded(server, 'wait_for_refine_session') > ended, 'the cancelled wait to end');
    expect(polls()).toBe(1);
  });
});

describe('get_refine_session, wait_for_refine_session: refine review that cannot mislead', () => {
  const session = () => ({ interactionId: sandbox.seed.negativeConversation, eventId: sandbox.seed.negativeEvent });

  it('wait_for_refine_session shows the linked draft changing the return window, and that it predates the session', async () => {
    const result = await call('wait_for_refine_session', session());
    const data = structured(result);
    expect(data.summary).toContain('Final Sale');
    const [change] = data.changes;
    expect(change.draftArticleId).toBe(sandbox.seed.articles.returnsPolicyDraft);
    // The changed sentence whole, on each side: not a fragment, not the whole paragraph twice.
    expect(change.draftReview.diff).toContainEqual({
      field: 'mainKnowledge',
      before: 'You can return unworn items with the original tags within 30 days of delivery for a full refund to the original payment method.',
      after: 'You can return unworn items with the original tags within 45 days of delivery for a full refund to the original payment method.',
    });
    expect(data.warnings).toEqual([expect.stringContaining('before this refine session began')]);
    const text = textOf(result);
    expect(text).toMatch(/^ +after: You can return unworn items with the original tags within 45 days/m);
    expect(text).not.toContain('\\n');
    // One session read, then the draft and its live article.
    expect(apiRequests(sandbox)).toHaveLength(3);
  });

  it('get_refine_session shows the same diffs inline and no longer repeats latestIteration', async () => {
    const compact = structured(await call('get_refine_session', session()));
    expect(compact).not.toHaveProperty('latestIteration');
    expect(compact.iterations).toHaveLength(1);
    expect(compact.iterations[0].changes[0].draftReview.diff[0].after).toContain('45 days');
    expect(compact.warnings[0]).toContain('before this refine session began');
    const full = structured(await call('get_refine_session', { ...session(), view: 'full' }));
    expect(full).not.toHaveProperty('latestIteration');
    expect(full.iterations[0].companyId).toBeDefined();
    expect(full.iterations[0].changes[0].draftReview.verdict).toBe('changes');
  });
});

describe('resources', () => {
  it('serves a refine session as a resource', async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text(`svc://refine/${sandbox.seed.negativeConversation}/${sandbox.seed.negativeEvent}`)).toContain('draftReview');
    const templates = (await server.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
    expect(templates).toEqual(expect.arrayContaining(['svc://refine/{interactionId}/{eventId}']));
  });
});

describe('secrets never leave', () => {
  it('shows no API key in any result or log line, nor in a preview', () => {
    expectNothingSecret(log, [server], Object.values(sandbox.keys));
  });
});
