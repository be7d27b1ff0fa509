import { z } from 'zod';
import { defineGroup, defineTool } from '../src/engine/define.js';
import { idInput } from '../src/engine/inputs.js';
import { isUuid } from './lib/inputs.js';
import { fieldOf } from './lib/records.js';
import { shape } from './lib/shapes.js';
import { seenIn } from './lib/mirror/seen.js';

const MAX_CASE_IDS = 200;

/** Unique case UUIDs, at most 200 (the spec sets no minimum): each bad or repeated entry is named by its index. */
const caseIdsInput = z
  .array(z.string())
  .max(MAX_CASE_IDS, `must list at most ${MAX_CASE_IDS} case ids`)
  .superRefine((ids, context) => {
    const first = new Map<string, number>();
    ids.forEach((id, index) => {
      if (!isUuid(id)) {
        context.addIssue({ code: z.ZodIssueCode.custom, path: [index], message: `must be a UUID (got ${JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id)})` });
        return;
      }
      const key = id.toLowerCase();
      if (first.has(key)) context.addIssue({ code: z.ZodIssueCode.custom, path: [index], message: `duplicates caseIds[${first.get(key)}] (${id}); case ids must be unique` });
      else first.set(key, index);
    });
  })
  .describe("Unique, at most 200, of the group's agent");

const addCases = defineTool({
  name: 'add_cases_to_criteria_group',
  title: 'Attach test cases to a criteria group',
  words: 'attach add link cases scenarios grading append',
  scope: 'write',
  idempotent: true,
  description: 'Adds existing test cases to a shared criteria group, to be judged by its criteria. UUIDs from the dashboard.',
  input: z.object({
    criteriaGroupId: idInput().pipe(z.string().uuid('must be a UUID')),
    caseIds: caseIdsInput,
  }),
  route: { method: 'POST', path: '/v2/test-suite/criteria-groups/{criteriaGroupId}/cases/public', body: ['caseIds'] },
  keepMirror: seenIn('add_cases_to_criteria_group', 'criteria_group', (_data, input) => [input.criteriaGroupId]),
  output: shape(
    { id: z.string(), botId: z.string(), name: z.string(), revision: z.number(), caseCount: z.number(), linkedCases: z.array(shape({ id: z.string() })) },
    { criteria: z.array(z.unknown()), impactToken: z.string() },
  ),
  done: (_data, input) => `${input.caseIds.length} case(s) attached to criteria group ${input.criteriaGroupId}.`,
  errors: {
    400: 'a case does not exist, belongs to another agent than the group, or would exceed 50 effective criteria',
    404: 'no criteria group with this id in the workspace (group ids come from the dashboard)',
  },
});

const startRun = defineTool({
  name: 'start_test_set_run',
  title: 'Start a test-set run',
  words: 'launch kick off regression tests suite begin trigger run execute',
  scope: 'write',
  openWorld: true,
  description: 'Starts a regression run of a test set (testSetId from the dashboard); execute mode calls external APIs.',
  input: z
    .object({
      testSetId: idInput(),
      ruleExecutionMode: z.enum(['reuse', 'simulate', 'execute']).default('simulate').describe('reuse recorded rule results, simulate, or execute'),
      promptVersionId: idInput('Not with reuse').optional(),
    })
    .superRefine((input, context) => {
      if (input.promptVersionId !== undefined && input.ruleExecutionMode === 'reuse') {
        context.addIssue({ code: z.ZodIssueCode.custom, path: ['promptVersionId'], message: 'is only valid with ruleExecutionMode simulate or execute, not reuse' });
      }
    }),
  route: { method: 'POST', path: '/v2/test-sets/{testSetId}/runs/public', body: ['ruleExecutionMode', 'promptVersionId'] },
  preview: async (input, context) => {
    if (input.ruleExecutionMode === 'execute')
      context.warn('execute mode can call the configured external APIs once per replayed conversation, for real: an action that writes (an order, a refund) writes each time.');
    return [`Queues a ${input.ruleExecutionMode} run of test set ${input.testSetId}. No route reads a run or its result: they show in the dashboard only.`];
  },
  keepMirror: seenIn('start_test_set_run', 'test_set', (_data, input) => [input.testSetId]),
  output: shape({ id: z.string(), testSetId: z.string(), status: z.string(), result: z.unknown() }, { createdBy: z.string().nullable() }),
  done: (data, input) => `Run ${fieldOf(data, 'id')} of test set ${input.testSetId} queued (status ${fieldOf(data, 'status')}); results appear in the dashboard (no route reads a run).`,
  errors: {
    400: 'check ruleExecutionMode (reuse, simulate, execute); promptVersionId goes only with simulate or execute',
    404: 'no test set with this id in the workspace (test set ids come from the dashboard)',
  },
});

export const testing = defineGroup({
  name: 'testing',
  description: 'Test-suite criteria groups and test-set runs.',
  tools: [addCases, startRun],
  aliases: { scenario: 'case', eval: 'test', evaluation: 'test' },
});
