/**
 * The sandbox over raw HTTP says only what the spec says (issue 14): one fixed 403 message, no
 * once-only publish, no default output-field source, no invented requirements on undocumented
 * payloads, promptVersionId restricted only by mode.
 */
import { describe, expect, it } from 'vitest';
import { call, start } from '../sandbox/helpers.js';
import { useSandbox } from '../support/fixture.js';

const FORBIDDEN = { statusCode: 403, message: 'API key does not have the required scope for this operation', error: 'Forbidden' };

const sb = useSandbox(() => start({ testRunTimings: { runMs: 60_000 } }));

describe("another workspace's data", () => {
  it("gets the spec's one fixed 403 message for sources, replays, rules, refine sessions, tag groups and test sets", async () => {
    const seed = sb.seed;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/v2/documents/public/${seed.sources.webCompleted}`],
      ['GET', `/v2/replays/${seed.replay}/public`],
      ['GET', `/v2/hc-rules/${seed.rules.whereIsMyOrder}/versions/public`],
      ['GET', `/v2/hc-rules/${seed.rules.whereIsMyOrder}/versions/v2/public`],
      ['GET', `/v2/fix-review/interactions/${seed.negativeConversation}/events/${seed.negativeEvent}/session/public`],
      ['POST', `/v2/tag-groups/${seed.tagGroups.topics}/tags/public`, { tagName: 'vip' }],
      ['POST', `/v2/test-sets/${seed.testSet}/runs/public`, {}],
    ];
    for (const [method, path, body] of routes) {
      const response = await call(sb, method, path, { key: sb.keys.otherWorkspace, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body, `${method} ${path}`).toEqual(FORBIDDEN);
    }
  });
});

describe('publishing a draft again', () => {
  it('is not refused: a draft of a live article updates that article again (version + 1 each time)', async () => {
    const original = sb.seed.articles.returnsPolicy;
    const draft = sb.seed.articles.returnsPolicyDraft;
    const first = await call(sb, 'POST', `/v2/hc-articles/${draft}/publish/public`, {});
    const second = await call(sb, 'POST', `/v2/hc-articles/${draft}/publish/public`, { body: { title: 'Returns policy (2nd)' } });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body).toMatchObject({ id: original, version: first.body.version + 1, title: 'Returns policy (2nd)', isDraft: false });
  });

  it('is not refused: a draft without an original updates the live article its first publish created, without a duplicate', async () => {
    const draft = sb.seed.articles.giftCardsDraft;
    const live = async () => (await call(sb, 'GET', '/v2/hc-articles/public')).body as Array<{ id: string }>;
    const before = (await live()).length;
    const first = await call(sb, 'POST', `/v2/hc-articles/${draft}/publish/public`, {});
    const second = await call(sb, 'POST', `/v2/hc-articles/${draft}/publish/public`, {});
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body).toMatchObject({ id: first.body.id, version: first.body.version + 1 });
    expect((await live()).length).toBe(before + 1);
  });
});

describe('output fields', () => {
  it('without source are stored without one (no apiResponse default), so no path is required', async () => {
    const tool = sb.seed.tools.customerTier;
    const response = await call(sb, 'PATCH', `/v2/hc-tools/${tool}/public`, { body: { outputSchema: [{ name: 'segment', type: 'string' }] } });
    expect(response.status).toBe(200);
    expect(response.body.outputSchema).toEqual([{ name: 'segment', type: 'string', path: null, sendToLlm: true, source: null }]);
  });
});

describe('undocumented payloads', () => {
  it('a data step needs only toolId and stepNumber; a test run reports the step without url instead of calling anything', async () => {
    const created = await call(sb, 'POST', '/v2/api-function-configs/public', { body: { toolId: sb.seed.tools.returnLabel, stepNumber: 9 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ toolId: sb.seed.tools.returnLabel, stepNumber: 9, url: null });
    const run = await call(sb, 'POST', `/v2/hc-tools/${sb.seed.tools.returnLabel}/test-run/public`, { body: { inputs: { orderId: '1001' } } });
    const step = (run.body.steps as Array<{ stepId: string; error?: string }>).find((entry) => entry.stepId === created.body.id);
    expect(step?.error ?? '').toMatch(/no url/);
  });

  it('an assignment takes botId as well as botIds', async () => {
    const response = await call(sb, 'POST', '/v2/hc-tools/junctions/public', { body: { toolId: sb.seed.tools.customerTier, botId: sb.seed.bots.emailSupport } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject([{ botId: sb.seed.bots.emailSupport, toolId: sb.seed.tools.customerTier }]);
  });
});

describe('criteria group cases', () => {
  it('accepts caseIds: [] (required, at most 200, no minimum) and changes nothing', async () => {
    const path = `/v2/test-suite/criteria-groups/${sb.seed.criteriaGroup}/cases/public`;
    const before = sb.state.workspaces.get(sb.seed.workspaceA)!.criteriaGroups.get(sb.seed.criteriaGroup)!.revision;
    const response = await call(sb, 'POST', path, { body: { caseIds: [] } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: sb.seed.criteriaGroup, revision: before });
  });
});

describe('test-set runs', () => {
  it('accept an unknown promptVersionId with simulate or execute; only reuse refuses one', async () => {
    const path = `/v2/test-sets/${sb.seed.testSet}/runs/public`;
    const simulate = await call(sb, 'POST', path, { body: { promptVersionId: 'pv-not-in-the-seed' } });
    expect(simulate.status).toBe(201);
    expect(simulate.body).toMatchObject({ status: 'running', result: null });
    expect((await call(sb, 'POST', path, { body: { ruleExecutionMode: 'execute', promptVersionId: 'pv-other' } })).status).toBe(201);
    expect((await call(sb, 'POST', path, { body: { ruleExecutionMode: 'reuse', promptVersionId: 'pv-other' } })).status).toBe(400);
  });
});
