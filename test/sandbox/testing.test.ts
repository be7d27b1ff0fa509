/** The sandbox's testing (criteria groups and test-set runs) routes (src/sandbox/routes/), over raw HTTP. */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { call, start, sandboxControl, skewedClock } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const RUN_MS = 60_000;
/** The sandbox's clock runs this far ahead of real time: a test moves it on instead of sleeping. */
const { now, advance } = skewedClock();
const sb = useSandbox(() => start({ testRunTimings: { runMs: RUN_MS }, now }));
const control = sandboxControl(sb);

describe('criteria groups', () => {
  const group = () => sb.seed.criteriaGroup;
  const post = (caseIds: unknown, id = group()) => call(sb, 'POST', `/v2/test-suite/criteria-groups/${id}/cases/public`, { body: { caseIds } });

  it('attaches cases and returns the group detail', async () => {
    const res = await post([sb.seed.testCases[2]]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: group(), caseCount: 3, revision: 4 });
    expect(res.body.linkedCases.map((c: { id: string }) => c.id)).toContain(sb.seed.testCases[2]);
    expect(Object.keys(res.body).sort()).toEqual(['botId', 'caseCount', 'companyId', 'createdAt', 'criteria', 'id', 'impactToken', 'linkedCases', 'name', 'revision', 'updatedAt']);
    const same = await post([sb.seed.testCases[2]]);
    expect(same.body.revision).toBe(4);
  });

  it('rejects missing, over 200, non-UUID and duplicate caseIds (400)', async () => {
    expect((await post(undefined)).status).toBe(400);
    const many = Array.from({ length: 201 }, (_, i) => seedId('testCase', 'a', 100 + i));
    expect((await post(many)).body.message).toContain('caseIds must contain no more than 200 elements');
    expect((await post(['nope'])).body.message).toContain('each value in caseIds must be a UUID');
    expect((await post([sb.seed.testCases[0], sb.seed.testCases[0]])).body.message).toContain("All caseIds's elements must be unique");
    expect((await post([sb.seed.testCases[0]], 'not-a-uuid')).status).toBe(400);
    expect((await post([sb.seed.testCases[0]], seedId('criteriaGroup', 'a', 9))).status).toBe(404);
    expect((await post([seedId('testCase', 'a', 77)])).status).toBe(400);
  });

  it('enforces the same-agent rule and at most 50 effective criteria per case (400)', async () => {
    const ws = sb.state.workspaces.get(sb.seed.workspaceA)!;
    const now = new Date().toISOString();
    const other = seedId('testCase', 'a', 50);
    ws.testCases.set(other, {
      id: other,
      companyId: ws.id,
      botId: sb.seed.bots.emailSupport,
      name: 'Email case',
      sourceInteractionId: null,
      criteria: [],
      groupIds: [],
      createdAt: now,
      updatedAt: now,
    });
    const sameAgent = await post([other]);
    expect(sameAgent.status).toBe(400);
    expect(sameAgent.body.message[0]).toContain('belongs to another agent');

    const big = seedId('criteriaGroup', 'a', 2);
    const base = ws.criteriaGroups.get(group())!;
    ws.criteriaGroups.set(big, { ...structuredClone(base), id: big, criteria: Array.from({ length: 48 }, () => base.criteria[0]) });
    // case 0 is linked to the seeded group (2 criteria): 2 + 48 = 50 is allowed
    expect((await post([sb.seed.testCases[0]], big)).status).toBe(200);
    // case 2 has 1 local criterion and the seeded group (2): 1 + 2 + 48 = 51
    const over = await post([sb.seed.testCases[2]], big);
    expect(over.status).toBe(400);
    expect(over.body.message[0]).toContain('51 effective criteria');
  });
});

describe('test-set runs', () => {
  const post = (body: unknown, id = sb.seed.testSet) => call(sb, 'POST', `/v2/test-sets/${id}/runs/public`, { body });

  it('starts a run as running with result null, then completes it', async () => {
    const res = await post({ ruleExecutionMode: 'execute', promptVersionId: sb.seed.promptVersions.v2 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ testSetId: sb.seed.testSet, status: 'running', result: null, createdBy: null });
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'createdBy', 'id', 'result', 'status', 'testSetId', 'updatedAt']);
    expect((await control('GET', `/__sandbox/test-set-runs/${res.body.id}`)).body.status).toBe('running');
    advance(RUN_MS);
    const done = (await control('GET', `/__sandbox/test-set-runs/${res.body.id}`)).body;
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ ruleExecutionMode: 'execute', total: 3 });
  });

  it('defaults to simulate and fails a run of a test set without cases', async () => {
    const ws = sb.state.workspaces.get(sb.seed.workspaceA)!;
    const empty = seedId('testSet', 'a', 2);
    ws.testSets.set(empty, { ...structuredClone(ws.testSets.get(sb.seed.testSet)!), id: empty, caseIds: [] });
    const res = await post(undefined, empty);
    expect(res.status).toBe(201);
    advance(RUN_MS);
    const done = (await control('GET', `/__sandbox/test-set-runs/${res.body.id}`)).body;
    expect(done.status).toBe('failed');
    expect(ws.testSetRuns.get(res.body.id)!.ruleExecutionMode).toBe('simulate');
  });

  it('rejects promptVersionId with reuse and unknown modes (400) and unknown test sets (404)', async () => {
    expect((await post({ ruleExecutionMode: 'reuse', promptVersionId: sb.seed.promptVersions.v1 })).body.message).toEqual([
      'promptVersionId is only allowed when ruleExecutionMode is simulate or execute',
    ]);
    expect((await post({ ruleExecutionMode: 'replay' })).status).toBe(400);
    expect((await post({}, seedId('testSet', 'a', 9))).status).toBe(404);
    expect((await post({}, sb.seed.testSet)).status).toBe(201);
    expect((await call(sb, 'POST', `/v2/test-sets/${sb.seed.testSet}/runs/public`, { key: sb.keys.readOnly, body: {} })).status).toBe(403);
  });
});
