/**
 * Test suite: attach cases to a criteria group (unique case UUIDs, at most 200, same agent,
 * at most 50 effective criteria per case), and start test-set runs that move from `running`
 * to `completed` or `failed` after `testRunTimings.runMs`.
 */
import { createHash } from 'node:crypto';
import { isUuid, newId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { findInWorkspace, iso, requireInWorkspace, type SandboxState, type Workspace } from '../state.js';
import type { CriteriaGroup, TestSetRun } from '../types.js';
import { Violations, objectBody, oneOf, optionalString, uuidParam } from '../validate.js';

export const MAX_CASE_IDS = 200;
export const MAX_EFFECTIVE_CRITERIA = 50;
export const RULE_EXECUTION_MODES = ['reuse', 'simulate', 'execute'] as const;
const DEFAULT_RUN_MS = 3000;

export function groupView(ws: Workspace, group: CriteriaGroup): Record<string, unknown> {
  const linked = [...ws.testCases.values()].filter((c) => c.groupIds.includes(group.id));
  return {
    id: group.id,
    companyId: group.companyId,
    botId: group.botId,
    name: group.name,
    criteria: structuredClone(group.criteria),
    revision: group.revision,
    createdAt: group.createdAt,
    updatedAt: group.updatedAt,
    caseCount: linked.length,
    linkedCases: linked.map((c) => ({ id: c.id, name: c.name, sourceInteractionId: c.sourceInteractionId })),
    impactToken: group.impactToken,
  };
}

/** Local criteria of the case plus the criteria of every group it would be linked to. */
function effectiveCriteria(ws: Workspace, local: number, groupIds: string[]): number {
  return groupIds.reduce((sum, id) => sum + (ws.criteriaGroups.get(id)?.criteria.length ?? 0), local);
}

export function addCases(req: RouteRequest) {
  const ws = req.workspace;
  const group = requireInWorkspace(req.state, ws, 'criteriaGroups', uuidParam(req.params, 'id'), 'Criteria group not found');
  const body = objectBody(req.body);
  const v = new Violations();
  const raw = body.caseIds;
  if (!Array.isArray(raw)) {
    v.add('caseIds must be an array');
    if (raw === undefined || raw === null) v.add('caseIds should not be empty');
  } else {
    if (raw.length > MAX_CASE_IDS) v.add(`caseIds must contain no more than ${MAX_CASE_IDS} elements`);
    if (raw.some((c) => !isUuid(c))) v.add('each value in caseIds must be a UUID');
    if (new Set(raw).size !== raw.length) v.add("All caseIds's elements must be unique");
  }
  v.throwIfAny();
  const ids = raw as string[];
  const problems = new Violations();
  const cases = ids.map((caseId) => {
    const testCase = findInWorkspace(req.state, ws, 'testCases', caseId);
    if (!testCase) {
      problems.add(`case ${caseId} does not exist in this workspace`);
      return undefined;
    }
    if (testCase.botId !== group.botId) problems.add(`case ${caseId} belongs to another agent than the criteria group`);
    else if (!testCase.groupIds.includes(group.id)) {
      const total = effectiveCriteria(ws, testCase.criteria.length, [...testCase.groupIds, group.id]);
      if (total > MAX_EFFECTIVE_CRITERIA) problems.add(`case ${caseId} would have ${total} effective criteria; at most ${MAX_EFFECTIVE_CRITERIA} are allowed per case`);
    }
    return testCase;
  });
  problems.throwIfAny();
  let changed = false;
  for (const testCase of cases) {
    if (testCase && !testCase.groupIds.includes(group.id)) {
      testCase.groupIds.push(group.id);
      testCase.updatedAt = iso(req.now);
      changed = true;
    }
  }
  if (changed) {
    group.revision += 1;
    group.updatedAt = iso(req.now);
    group.impactToken = `imp_${createHash('sha256').update(`${group.id}:${group.revision}`).digest('hex').slice(0, 10)}`;
  }
  return { body: groupView(ws, group) };
}

interface RunPlan {
  runMs: number;
  ws: Workspace;
}
const runPlans = new WeakMap<TestSetRun, RunPlan>();

/** Brings a run up to date: `running` until runMs passed, then `completed` (with a result) or `failed` (a test set without cases). */
export function advanceRun(state: SandboxState, run: TestSetRun): void {
  const plan = runPlans.get(run);
  if (!plan || run.status !== 'running') return;
  const end = run.startedAtMs + plan.runMs;
  if (state.now() < end) return;
  const { ws } = plan;
  const testSet = ws.testSets.get(run.testSetId);
  const cases = (testSet?.caseIds ?? []).map((id) => ws.testCases.get(id)).filter((c) => c !== undefined);
  run.updatedAt = iso(end);
  runPlans.delete(run);
  if (cases.length === 0) {
    run.status = 'failed';
    run.result = { error: 'The test set has no cases to run.' };
    return;
  }
  const results = cases.map((c) => {
    const source = c.sourceInteractionId ? ws.conversations.get(c.sourceInteractionId) : undefined;
    return { caseId: c.id, name: c.name, passed: source?.resolved !== false };
  });
  run.status = 'completed';
  run.result = {
    ruleExecutionMode: run.ruleExecutionMode,
    promptVersionId: run.promptVersionId,
    total: results.length,
    passed: results.filter((r) => r.passed).length,
    failed: results.filter((r) => !r.passed).length,
    cases: results,
  };
}

export function runView(state: SandboxState, run: TestSetRun): Record<string, unknown> {
  advanceRun(state, run);
  return {
    id: run.id,
    testSetId: run.testSetId,
    status: run.status,
    result: structuredClone(run.result),
    createdBy: run.createdBy,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

export function startRun(req: RouteRequest) {
  const ws = req.workspace;
  const testSet = requireInWorkspace(req.state, ws, 'testSets', uuidParam(req.params, 'testSetId'), 'Test set not found');
  const body = objectBody(req.body);
  const v = new Violations();
  const mode = oneOf(v, 'ruleExecutionMode', body.ruleExecutionMode, RULE_EXECUTION_MODES) ?? 'simulate';
  const promptVersionId = optionalString(v, 'promptVersionId', body.promptVersionId);
  if (promptVersionId !== undefined && mode === 'reuse') v.add('promptVersionId is only allowed when ruleExecutionMode is simulate or execute');
  v.throwIfAny();
  // The spec restricts promptVersionId only to the simulate and execute modes: an unknown one is
  // recorded as given; another workspace's prompt version is still that workspace's data (403).
  if (promptVersionId !== undefined) findInWorkspace(req.state, ws, 'promptVersions', promptVersionId);
  const at = iso(req.now);
  const run: TestSetRun = {
    id: newId(),
    testSetId: testSet.id,
    status: 'running',
    result: null,
    createdBy: null,
    createdAt: at,
    updatedAt: at,
    companyId: ws.id,
    ruleExecutionMode: mode,
    promptVersionId: promptVersionId ?? null,
    startedAtMs: req.now,
  };
  ws.testSetRuns.set(run.id, run);
  runPlans.set(run, { runMs: req.state.testRunTimings?.runMs ?? DEFAULT_RUN_MS, ws });
  return { status: 201, body: runView(req.state, run) };
}
