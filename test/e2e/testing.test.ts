/**
 * The testing tools (tools/testing.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateInput } from '../../src/engine/pipeline.js';
import { buildRequest } from '../../src/engine/request.js';
import { seedId } from '../../src/sandbox/ids.js';
import { catalog } from '../../tools/index.js';
import { apiRequests, textOf } from '../support/harness.js';
import { structured, useConnection, useServer } from '../support/fixture.js';
import { expectListing, expectNothingSecret, expectRefused, resultLog } from '../support/tool-checks.js';

const TESTING = ['add_cases_to_criteria_group', 'start_test_set_run'];

const ownTools = new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool]));

const log = resultLog();
const { sandbox, server, call } = useServer({ sandbox: { testRunTimings: { runMs: 200 } }, env: { SVC_CONFIRM: 'none' }, onResult: log.keep });
const guarded = useConnection(sandbox, { env: { SVC_CONFIRM: 'destructive' }, onResult: log.keep });

describe('tools/list', () => {
  it('lists both tools with their hints and output schemas', async () => {
    await expectListing(server, { tools: TESTING, idempotentWrites: ['add_cases_to_criteria_group'], openWorld: ['start_test_set_run'], outputs: TESTING });
  });
});

describe('each tool reaches its route', () => {
  it('add_cases_to_criteria_group, start_test_set_run: attach cases, and start a run with the default mode', async () => {
    const group = structured(await call('add_cases_to_criteria_group', { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: [sandbox.seed.testCases[2]] }));
    expect(group).toMatchObject({ id: sandbox.seed.criteriaGroup, caseCount: 3 });
    const run = structured(await call('start_test_set_run', { testSetId: sandbox.seed.testSet }));
    expect(run).toMatchObject({ status: 'running', result: null });
    structured(await call('start_test_set_run', { testSetId: sandbox.seed.testSet, ruleExecutionMode: 'simulate', promptVersionId: sandbox.seed.promptVersions.v2 }));
    const requests = apiRequests(sandbox);
    expect(requests.map((request) => [`${request.method} ${request.path}`, request.body])).toEqual([
      [`POST /v2/test-suite/criteria-groups/${sandbox.seed.criteriaGroup}/cases/public`, { caseIds: [sandbox.seed.testCases[2]] }],
      [`POST /v2/test-sets/${sandbox.seed.testSet}/runs/public`, { ruleExecutionMode: 'simulate' }],
      [`POST /v2/test-sets/${sandbox.seed.testSet}/runs/public`, { ruleExecutionMode: 'simulate', promptVersionId: sandbox.seed.promptVersions.v2 }],
    ]);
  });
});

describe('documented rules are refused before sending', () => {
  it('names the field and sends nothing', async () => {
    const uuid = seedId('testCase', 'a', 1);
    await expectRefused(call, sandbox, [
      ['add_cases_to_criteria_group', { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: [uuid, 'nope'] }, 'caseIds[1]: must be a UUID'],
      ['add_cases_to_criteria_group', { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: [uuid, seedId('testCase', 'a', 2), uuid] }, 'caseIds[2]: duplicates caseIds[0]'],
      ['add_cases_to_criteria_group', { criteriaGroupId: 'group', caseIds: [uuid] }, 'criteriaGroupId: must be a UUID'],
      [
        'add_cases_to_criteria_group',
        { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: Array.from({ length: 201 }, (_, i) => seedId('testCase', 'a', i + 1)) },
        'caseIds: must list at most 200',
      ],
      ['start_test_set_run', { testSetId: 's', ruleExecutionMode: 'reuse', promptVersionId: 'p' }, 'promptVersionId: is only valid with ruleExecutionMode simulate or execute'],
      ['start_test_set_run', { testSetId: 's', ruleExecutionMode: 'replay' }, 'ruleExecutionMode: must be one of'],
    ]);
  });
});

describe('confirmation under SVC_CONFIRM=destructive', () => {
  it('start_test_set_run: previews an execute run without sending, then sends it once with its token', async () => {
    const preview = await guarded.call('start_test_set_run', { testSetId: sandbox.seed.testSet, ruleExecutionMode: 'execute' });
    expect(preview.isError).toBeFalsy();
    expect(textOf(preview)).toContain('nothing was sent');
    expect(textOf(preview)).toContain(`POST /v2/test-sets/${sandbox.seed.testSet}/runs/public`);
    expect(textOf(preview)).toContain('"ruleExecutionMode": "execute"');
    expect(apiRequests(sandbox)).toHaveLength(0);

    const { confirmToken } = preview.structuredContent as { confirmToken: string };
    const sent = await guarded.call('start_test_set_run', { testSetId: sandbox.seed.testSet, ruleExecutionMode: 'execute', confirm: confirmToken });
    expect(sent.structuredContent).toMatchObject({ status: 'running' });
    expect(apiRequests(sandbox).map((request) => request.body)).toEqual([{ ruleExecutionMode: 'execute' }]);
    const { tools } = await guarded.client.listTools();
    const confirmable = tools.filter((tool) => TESTING.includes(tool.name) && 'confirm' in ((tool.inputSchema.properties ?? {}) as object)).map((tool) => tool.name);
    expect(confirmable).toEqual(['start_test_set_run']);
  });
});

describe('secrets never leave', () => {
  it('shows no API key in any result or log line, nor in a preview', () => {
    expectNothingSecret(log, [server, guarded], Object.values(sandbox.keys));
  });
});

describe('input properties (fast-check, in process)', () => {
  const tool = (name: string) => ownTools.get(name)!;
  const uuid = fc.uuid();

  it('add_cases_to_criteria_group: accepts every list of 0-200 unique UUIDs and sends it unchanged', () => {
    fc.assert(
      fc.property(fc.uniqueArray(uuid, { minLength: 0, maxLength: 200, selector: (id) => id.toLowerCase() }), (caseIds) => {
        const parsed = validateInput(tool('add_cases_to_criteria_group'), { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds }, {});
        if (!parsed.ok) return false;
        return JSON.stringify(buildRequest(tool('add_cases_to_criteria_group'), parsed.value).body) === JSON.stringify({ caseIds });
      }),
      { numRuns: 60 },
    );
  });

  it('add_cases_to_criteria_group: names the index of any duplicate', () => {
    fc.assert(
      fc.property(fc.uniqueArray(uuid, { minLength: 1, maxLength: 50 }), fc.nat(), fc.nat(), (ids, pick, at) => {
        const duplicate = ids[pick % ids.length];
        const caseIds = [...ids];
        const position = at % (ids.length + 1);
        caseIds.splice(position, 0, duplicate);
        const parsed = validateInput(tool('add_cases_to_criteria_group'), { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds }, {});
        const firstIndex = caseIds.indexOf(duplicate);
        const secondIndex = caseIds.indexOf(duplicate, firstIndex + 1);
        return !parsed.ok && parsed.message.includes(`caseIds[${secondIndex}]: duplicates caseIds[${firstIndex}]`);
      }),
      { numRuns: 60 },
    );
  });

  it('add_cases_to_criteria_group: refuses any non-UUID entry by index, and more than 200 ids', () => {
    fc.assert(
      fc.property(
        fc.array(uuid, { maxLength: 20 }),
        fc.string().filter((text) => !/^[0-9a-f-]{36}$/i.test(text)),
        fc.nat(),
        (ids, bad, at) => {
          const caseIds = [...ids];
          const position = at % (ids.length + 1);
          caseIds.splice(position, 0, bad);
          const parsed = validateInput(tool('add_cases_to_criteria_group'), { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds }, {});
          return !parsed.ok && parsed.message.includes(`caseIds[${position}]: must be a UUID`);
        },
      ),
      { numRuns: 60 },
    );
    const many = Array.from({ length: 201 }, (_, i) => seedId('testCase', 'a', i + 1));
    expect(validateInput(tool('add_cases_to_criteria_group'), { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: many }, {}).ok).toBe(false);
  });
});
