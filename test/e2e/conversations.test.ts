/**
 * The conversations tools (tools/conversations.ts) end to end, with what every tool shares as a
 * conversations tool meets it: authentication failures, delete confirmation, read-only mode and
 * toolsets. Stats and exports over long windows: conversations-stats*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { apiRequests, callAsTask, callsEnded, connect, sandboxEnv, textOf, waitFor } from '../support/harness.js';
import { useServer } from '../support/fixture.js';
import { expectNothingSecret, expectRefused, resultLog, type Refusal } from '../support/tool-checks.js';

const log = resultLog();
const { sandbox, server, call } = useServer({ env: { SVC_CONFIRM: 'none' }, onResult: log.keep });

describe('conversations', () => {
  it('lists the conversations tools, and every tool with all four hints', async () => {
    const { tools } = await server.client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['list_conversations', 'export_conversations', 'generate_answer', 'give_feedback', 'delete_conversation']) {
      expect(names).toContain(name);
    }
    for (const tool of tools) {
      expect(Object.keys(tool.annotations ?? {})).toEqual(expect.arrayContaining(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']));
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('delete_conversation')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('list_conversations')?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('list_agents, list_conversations: call each route with the key as a bearer token and nowhere else', async () => {
    const agents = await call('list_agents');
    expect(agents.isError).toBeFalsy();
    const conversations = await call('list_conversations', { limit: 5 });
    expect(conversations.isError).toBeFalsy();
    const requests = apiRequests(sandbox);
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v2/bots/public', 'GET /v2/hc-interactions/public']);
    for (const request of requests) {
      expect(request.keyName).toBe('admin');
      expect(request.headers['x-api-key']).toBeUndefined();
      expect(JSON.stringify(request.query)).not.toContain('svc_');
    }
    expect(requests[1].query).toMatchObject({ limit: '5' });
  });

  it('list_conversations: returns compact conversations by default and every field with view full', async () => {
    const compact = await call('list_conversations', { since: '30d', limit: 3 });
    const full = await call('list_conversations', { since: '30d', limit: 3, view: 'full' });
    const compactItem = (compact.structuredContent as { interactions: Record<string, unknown>[] }).interactions[0];
    const fullItem = (full.structuredContent as { interactions: Record<string, unknown>[] }).interactions[0];
    expect(compactItem.id).toBe(fullItem.id);
    expect(fullItem).toHaveProperty('usedSubfolders');
    expect(compactItem).not.toHaveProperty('usedSubfolders');
    expect(textOf(compact)).toMatch(/createdAt: \d{4}-\d{2}-\d{2}T/);
  });

  it('refuses every documented input rule by field name without sending anything', async () => {
    const cases: Refusal[] = [
      ['list_conversations', { limit: 0 }, 'limit: must be from 1 to 100'],
      ['list_conversations', { limit: 101 }, 'limit: must be from 1 to 100'],
      ['list_conversations', { since: '2026-01-10T00:00:00Z', until: '2026-01-01T00:00:00Z' }, 'since: must be earlier than until'],
      ['list_conversations', { since: '120d' }, 'at most 90 days'],
      ['list_conversations', { question: '50%_off' }, 'question: must not contain % or _'],
      ['list_conversations', { answer: 'a'.repeat(101) }, 'answer: must be at most 100 characters'],
      ['list_conversations', { question: 'tab\there' }, 'question: must not contain control characters'],
      ['list_conversations', { csat: 6 }, 'csat: must be from 0 to 5'],
      ['list_conversations', { channel: 'sms' }, 'channel'],
      ['list_conversations', { direction: 'sideways' }, 'direction: must be one of'],
      ['generate_answer', { content: '   ', botId: 'b' }, 'content: must not be empty'],
      ['generate_answer', { content: 'hello' }, 'botId: botId or interactionId is required'],
      ['generate_answer', { content: 'hello', botId: 'b', role: 'robot' }, 'role: must be one of'],
      ['give_feedback', { interactionId: 'c', eventId: '' }, 'eventId: must not be empty'],
      ['give_feedback', { interactionId: 'c', eventId: 'e', approved: 'yes' }, 'approved'],
      ['delete_conversation', {}, 'interactionId: is required'],
      ['export_conversations', { since: '10d', until: '20d' }, 'since: must be earlier than until'],
    ];
    await expectRefused(call, sandbox, cases);
  });

  it('list_conversations: counts only non-blank characters against the 100 of question and answer, and the API agrees', async () => {
    const padded = Array.from({ length: 60 }, () => 'a').join(' ');
    expect(padded).toHaveLength(119);
    for (const field of ['question', 'answer']) {
      const result = await call('list_conversations', { [field]: padded });
      expect(result.isError, textOf(result)).toBeFalsy();
      const tooLong = await call('list_conversations', { [field]: `${'b '.repeat(100)}b` });
      expect(textOf(tooLong)).toContain(`${field}: must be at most 100 characters, not counting blanks`);
    }
    expect(apiRequests(sandbox).map((request) => [request.status, request.query.question ?? request.query.answer])).toEqual([
      [200, padded],
      [200, padded],
    ]);
  });

  it('list_conversations: sends empty source and channel lists as given, which the spec does not forbid (issue 33)', async () => {
    const result = await call('list_conversations', { source: [], channel: [] });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(apiRequests(sandbox).map((request) => [request.status, request.query.source, request.query.channel])).toEqual([[200, '', '']]);
  });

  it('list_conversations: counts characters as code points, 51 emoji as 51, takes blank text, and the API agrees (issue 33)', async () => {
    const emoji = '😀'.repeat(51);
    for (const field of ['question', 'answer']) {
      for (const text of [emoji, '😀'.repeat(100), '   ']) {
        const result = await call('list_conversations', { [field]: text });
        expect(result.isError, textOf(result)).toBeFalsy();
      }
      expect(textOf(await call('list_conversations', { [field]: '😀'.repeat(101) }))).toContain(`${field}: must be at most 100 characters, not counting blanks`);
    }
    expect(apiRequests(sandbox).map((request) => request.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('generate_answer: reports a write that got a 500 and sends it only once', async () => {
    const agents = (await call('list_agents')).structuredContent as { agents: Array<{ id: string }> };
    sandbox.clearRequests();
    sandbox.injectFaults([{ path: '/v2/hc-interactions/events/public', status: 500, times: 5 }]);
    const result = await call('generate_answer', { botId: agents.agents[0].id, content: 'Where is my order?' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('The API failed internally (500)');
    expect(textOf(result)).toContain('sent only once');
    expect(apiRequests(sandbox).filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it("generate_answer, give_feedback: answers from the agent's articles, records feedback and recomputes resolved", async () => {
    const agents = (await call('list_agents')).structuredContent as { agents: Array<{ id: string }> };
    const answer = await call('generate_answer', { botId: agents.agents[0].id, content: 'How long does shipping take?' });
    expect(answer.isError).toBeFalsy();
    const events = (answer.structuredContent as { events: Array<Record<string, unknown>> }).events;
    const reply = events.find((event) => event.role === 'svcbot')!;
    expect(reply).toBeDefined();
    expect((reply.usedArticles as unknown[]).length).toBeGreaterThan(0);
    expect(textOf(answer)).toContain('untrusted-data');

    const feedback = await call('give_feedback', { interactionId: reply.interactionId, eventId: reply.id, approved: false });
    expect(feedback.isError).toBeFalsy();
    expect(feedback.structuredContent).toMatchObject({ success: true });
    const post = apiRequests(sandbox).find((request) => request.path.endsWith('/feedback/public'))!;
    expect(post.body).toEqual({ eventId: reply.id, approved: false });
  });

  it('give_feedback: explains a 406 from the feedback route', async () => {
    const result = await call('give_feedback', { interactionId: 'no-such-conversation', eventId: 'no-such-event', approved: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('(406)');
    expect(textOf(result)).toContain('list_conversations');
  });

  it('generate_answer: parses object arguments sent as JSON strings', async () => {
    const agents = (await call('list_agents')).structuredContent as { agents: Array<{ id: string }> };
    const result = await call('generate_answer', { botId: agents.agents[0].id, content: 'hello', role: 'agent', metadata: '{"channel":"email"}' });
    expect(result.isError).toBeFalsy();
    const post = apiRequests(sandbox).find((request) => request.method === 'POST')!;
    expect(post.body).toMatchObject({ metadata: { channel: 'email' } });
  });

  it('export_conversations: exports a window longer than 90 days with progress, stopping at maxConversations', async () => {
    const progress: string[] = [];
    const result = await call(
      'export_conversations',
      { since: '200d', maxConversations: 1000 },
      {
        onprogress: (update) => progress.push(update.message ?? ''),
      },
    );
    expect(result.isError).toBeFalsy();
    const summary = result.structuredContent as { windows: number; count: number; complete: boolean };
    expect(summary.windows).toBe(3);
    expect(summary.complete).toBe(true);
    expect(summary.count).toBeGreaterThan(10);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    const windows = apiRequests(sandbox)
      .filter((request) => request.path === '/v2/hc-interactions/public')
      .map((request) => Number(request.query.until) - Number(request.query.since));
    expect(Math.max(...windows)).toBeLessThanOrEqual(90 * 86_400_000);

    const capped = (await call('export_conversations', { since: '200d', maxConversations: 4 })).structuredContent as { count: number; complete: boolean };
    expect(capped).toMatchObject({ count: 4, complete: false });
  });

  it('export_conversations: runs an export as an MCP task when the client asks for one', async () => {
    const { kinds, result: final } = await callAsTask(server.client, 'export_conversations', { since: '100d', maxConversations: 20 });
    expect(kinds[0]).toBe('taskCreated');
    expect(final?.isError).toBeFalsy();
    expect(final?.structuredContent).toMatchObject({ windows: 2, complete: false, count: 20 });
  });

  it('export_conversations: stops an export task on tasks/cancel and sends nothing more', async () => {
    sandbox.injectFaults([{ path: '/v2/hc-interactions/public', delayMs: 100, times: 20 }]);
    const ended = callsEnded(server, 'export_conversations');
    const created = await server.client.request(
      { method: 'tools/call', params: { name: 'export_conversations', arguments: { since: '1000d', maxConversations: 10_000 }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    await waitFor(() => apiRequests(sandbox).length > 0, 'the export to start paging');
    await server.client.experimental.tasks.cancelTask(taskId);
    expect((await server.client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    // Once the run has returned, nothing more can be sent for it.
    await waitFor(() => callsEnded(server, 'export_conversations') > ended, 'the cancelled export to end');
    const sent = apiRequests(sandbox).length;
    expect(sent).toBeLessThan(12);
  });
});

describe('authentication failures', () => {
  it('explains 401 (invalid or revoked) and 403 (scope or workspace)', async () => {
    const revoked = await connect({ env: sandboxEnv(sandbox, sandbox.keys.revoked), onResult: log.keep });
    const readOnly = await connect({ env: sandboxEnv(sandbox, sandbox.keys.readOnly, { SVC_CONFIRM: 'none' }), onResult: log.keep });
    try {
      const unauthorized = await revoked.call('list_agents');
      expect(unauthorized.isError).toBe(true);
      expect(textOf(unauthorized)).toContain('invalid or revoked');
      const forbidden = await readOnly.call('delete_conversation', { interactionId: 'anything' });
      expect(forbidden.isError).toBe(true);
      expect(textOf(forbidden)).toMatch(/lacks the "write" scope.*another workspace/);
      expect(apiRequests(sandbox).filter((request) => request.method === 'GET' && request.status === 401)).toHaveLength(1);
    } finally {
      await revoked.close();
      await readOnly.close();
    }
  });
});

describe('delete_conversation: confirmation', () => {
  it("previews a delete, sends it once with the preview's confirmToken", async () => {
    const client = await connect({ env: sandboxEnv(sandbox), onResult: log.keep });
    try {
      const preview = await client.call('delete_conversation', { interactionId: 'conv-to-delete' });
      expect(preview.isError).toBeFalsy();
      expect(textOf(preview)).toContain('nothing was sent');
      expect(textOf(preview)).toContain('DELETE /v2/hc-interactions/conv-to-delete/public');
      expect(apiRequests(sandbox)).toHaveLength(0);
      const { confirmToken } = preview.structuredContent as { confirmToken: string };
      const sent = await client.call('delete_conversation', { interactionId: 'conv-to-delete', confirm: confirmToken });
      expect(sent.structuredContent).toMatchObject({ success: true });
      expect(apiRequests(sandbox).filter((request) => request.method === 'DELETE')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("follows the user's answer when the client supports elicitation", async () => {
    const answers = [
      { action: 'accept' as const, content: { confirm: true } },
      { action: 'accept' as const, content: { confirm: false } },
      { action: 'decline' as const },
      { action: 'cancel' as const },
    ];
    const messages: string[] = [];
    const client = await connect({
      env: sandboxEnv(sandbox),
      onResult: log.keep,
      elicit: (message) => {
        messages.push(message);
        return answers.shift()!;
      },
    });
    try {
      const yes = await client.call('delete_conversation', { interactionId: 'c-yes' });
      expect(yes.structuredContent).toMatchObject({ success: true });
      expect(messages[0]).toContain('DELETE /v2/hc-interactions/c-yes/public');
      for (const id of ['c-no', 'c-decline', 'c-cancel']) {
        const refused = await client.call('delete_conversation', { interactionId: id, confirm: true });
        expect(textOf(refused)).toContain('nothing was sent');
      }
      expect(apiRequests(sandbox).map((request) => request.path)).toEqual(['/v2/hc-interactions/c-yes/public']);
    } finally {
      await client.close();
    }
  });
});

describe('read-only mode', () => {
  it('neither lists nor accepts write tools', async () => {
    const client = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_READ_ONLY: 'true' }) });
    try {
      const { tools } = await client.client.listTools();
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
      expect(tools.map((tool) => tool.name)).toContain('list_conversations');
      await expect(client.call('delete_conversation', { interactionId: 'x', confirm: true })).rejects.toThrow(/Unknown tool/);
      const prompts = (await client.client.listPrompts()).prompts.map((prompt) => prompt.name);
      expect(prompts).toContain('triage_negative_answers');
      expect(prompts).not.toContain('import_knowledge_from_urls');
      expect(prompts).not.toContain('setup_attribute');
      expect(apiRequests(sandbox)).toHaveLength(0);
    } finally {
      await client.close();
    }
  });
});

describe('secrets', () => {
  it('never shows the API key in a result or a log line', () => {
    expectNothingSecret(log, [server], Object.values(sandbox.keys));
  });
});

describe('toolsets', () => {
  it('exposes only the named groups, with their resources', async () => {
    const client = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_TOOLSETS: 'agents,articles' }) });
    try {
      const tools = (await client.client.listTools()).tools.map((tool) => tool.name);
      expect(tools.sort()).toEqual([
        'compare_article_draft',
        'create_article',
        'create_article_draft',
        'delete_article',
        'get_articles',
        'list_agents',
        'list_articles',
        'move_article',
        'publish_article_draft',
        'server_info',
        'update_article',
      ]);
      const resources = (await client.client.listResources()).resources.map((resource) => resource.uri);
      expect(resources).toEqual(expect.arrayContaining(['svc://guide', 'svc://agents', 'svc://articles/live']));
      expect(resources).not.toContain('svc://actions');
    } finally {
      await client.close();
    }
  });

  it('refuses an unknown group, naming the known ones', async () => {
    await expect(connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_TOOLSETS: 'agents,billing' }) })).rejects.toThrow(/unknown group\(s\) billing.*conversations/);
  });
});
