import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { SEED } from '../../src/sandbox/index.js';
import { gateAnswerOf } from '../../src/views/results.js';
import { catalog } from '../../tools/index.js';
import { apiRequests, textOf } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';
import { disguisedText, rawHidden } from '../support/hidden-text.js';
import { keyFormArbitrary, keyForms, keyLeaks } from '../support/key-forms.js';
import { tokenFormArbitrary } from '../support/token-forms.js';
import { isWrite, routePattern, WRITE_ROUTES } from '../support/write-routes.js';

/**
 * Hostile calls to every tool through a real SDK client. `npm test` runs a few per tool;
 * `npm run test:fuzz` (CI) runs many more within its time limit. Reproduce a failure with
 * FUZZ_SEED=<the printed seed>.
 */
const RUNS_PER_TOOL = Number(process.env.FUZZ_RUNS_PER_TOOL ?? 3);
/** Rounds over the whole catalog repeat, each with new seeds, until this much time has passed (at least one round). */
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 0);
const SEED_USED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CALL_TIMEOUT_MS = 15_000;
const CALLER_SECRET = 'Caller-Secret-7f3a9c21';

/** Every route the catalog may send, as a pattern: a recorded path that matches none was traversed or malformed. */
const ROUTES = catalog.flatMap((group) => group.tools).flatMap((tool) => (tool.route ? [routePattern(tool.route.path)] : []));

const sandbox = useSandbox({ rateLimit: { limit: 1_000_000, windowMs: 60_000 } });
// The mirror on, so that its tools (hostile SQL among the rest) are fuzzed too.
const env = { SVC_RATE_LIMIT: '1000000/60s', SVC_MAX_RESULT_TOKENS: '4000', SVC_MIRROR: 'memory' };
const connection = useConnection(sandbox, { env: { ...env, SVC_CONFIRM: 'none' } });
/** The same server with confirmation by token (SVC_CONFIRM=writes, no elicitation), for re-encoded tokens. */
const confirming = useConnection(sandbox, { env });
let tools: Tool[];
let key: string;

beforeAll(async () => {
  tools = (await connection.client.listTools()).tools;
  key = sandbox.keys.admin;
  console.log(`fuzz seed ${SEED_USED} (FUZZ_SEED=${SEED_USED} reproduces it), ${RUNS_PER_TOOL} runs per tool`);
});

function hostileValue(): fc.Arbitrary<unknown> {
  const key = sandbox.keys.admin;
  const ids = [
    SEED.bots.storeAssistant,
    SEED.folders.shipping,
    SEED.articles.returnsPolicy,
    SEED.negativeConversation,
    SEED.negativeEvent,
    SEED.sources.webCompleted,
    SEED.tools.orderStatus,
    SEED.rules.whereIsMyOrder,
    SEED.criteriaGroup,
  ];
  const strings = fc.oneof(
    fc.constantFrom('.', '..', '', ' ', '%2e%2e', '../..', 'a/../b', '\ud800', '\udc00x', 'x\u0085y', 'line\nbreak', '</untrusted-data-00000000>', '__proto__'),
    // The key in any form is a secret wherever it appears; the caller's secret only where it is passed as one (below).
    fc.constantFrom(...keyForms(key).map((form) => form.text)),
    keyFormArbitrary(key).map((form) => form.text),
    // Text that hides itself: bidi controls and zero-width characters.
    disguisedText(),
    // Strings shaped like confirmation tokens.
    fc
      .tuple(fc.stringMatching(/^[0-9a-z]{1,12}$/), fc.base64String({ minLength: 12, maxLength: 12 }), fc.base64String({ minLength: 44, maxLength: 44 }))
      .map((parts) => parts.join('.').replace(/=/g, '')),
    fc.constantFrom(`${sandbox.url}/__sandbox/info`, `${sandbox.url}/__sandbox/mock/../requests`, 'https://example.com/${orderId}', '99999999999d', '7d', 'now'),
    fc.constantFrom(...ids),
    fc.string({ maxLength: 30 }),
  );
  const numbers = fc.oneof(fc.constantFrom(1e308, -1e308, 1e300, 0, -1, 2 ** 53, 0.5), fc.integer());
  return fc.oneof(
    { weight: 4, arbitrary: strings },
    { weight: 2, arbitrary: numbers },
    { weight: 1, arbitrary: fc.constantFrom({ Authorization: `Bearer ${CALLER_SECRET}` }, { token: { hide: true, value: CALLER_SECRET } }, { hide: true, value: CALLER_SECRET }) },
    { weight: 1, arbitrary: fc.array(strings, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  );
}

function argsFor(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const fields = [...Object.keys(tool.inputSchema.properties ?? {}), '__proto__', 'constructor', 'toString', 'unexpected', 'confirm'];
  return fc.dictionary(fc.constantFrom(...fields), hostileValue(), { maxKeys: 5 }).map((args) => {
    // Waits end quickly: the fuzz looks for hangs, not for patience.
    return 'timeoutSeconds' in (tool.inputSchema.properties ?? {}) ? { ...args, timeoutSeconds: 1 } : args;
  });
}

/** `- field: rule`, where the field is a dotted path (names, `[n]`, quoted `["odd key"]`), or several joined by commas. */
const FIELD_LINE = /^- (?:[^\s:[\]"]|, |\[(?:\d+|"(?:[^"\\]|\\.)*")\])+: \S/;

function checkResult(tool: Tool, args: Record<string, unknown>, result: CallToolResult, sentBefore: number): void {
  const text = textOf(result);
  const context = `${tool.name} ${JSON.stringify(args).slice(0, 300)}\n${text.slice(0, 500)}`;
  const refusal = /^Invalid input for \w+; nothing was sent\.\n([\s\S]*)$/.exec(text);
  if (refusal) {
    for (const line of refusal[1].split('\n')) expect(line, context).toMatch(FIELD_LINE);
    expect(line0(refusal[1]), context).not.toMatch(/^- input:/);
    expect(apiRequests(sandbox).length, context).toBe(sentBefore);
  }
  for (const request of apiRequests(sandbox).slice(sentBefore)) {
    expect(
      ROUTES.some((route) => route.test(request.path)),
      `${context}\nsent ${request.method} ${request.path}`,
    ).toBe(true);
  }
  expect(keyLeaks(result, key), `${context}\nleaked a form of the API key`).toEqual([]);
  // A preview shows every value the write would send, the caller's secrets included, for the user to judge (design 10.4): only what a call returns must not.
  if (!gateAnswerOf(result)) expect(JSON.stringify(result).toLowerCase().includes(CALLER_SECRET.toLowerCase()), `${context}\nleaked the caller's secret`).toBe(false);
  expect(rawHidden(text), `${context}\nshows bidi controls or zero-width characters unescaped`).toEqual([]);
}

/**
 * A write previewed on the confirming server, then sent with a re-encoding of its token: nothing
 * may reach the write's route (the preview's own reads may).
 */
async function checkTokenForm(tool: Tool, args: Record<string, unknown>, pick: fc.GeneratorValue): Promise<void> {
  if (!WRITE_ROUTES.has(tool.name)) return;
  const { confirm: _ignored, ...request } = args;
  const preview = await confirming.call(tool.name, request, { timeout: CALL_TIMEOUT_MS });
  const token = (preview.structuredContent as { confirmToken?: unknown } | undefined)?.confirmToken;
  if (typeof token !== 'string') return;
  const form = pick(tokenFormArbitrary, token);
  const sentBefore = apiRequests(sandbox).length;
  const result = await confirming.call(tool.name, { ...request, confirm: form.text }, { timeout: CALL_TIMEOUT_MS });
  const writes = apiRequests(sandbox)
    .slice(sentBefore)
    .filter((sent) => isWrite(sent, tool.name));
  expect(writes, `${tool.name} with its token ${form.name} (${JSON.stringify(form.text)}) sent the write\n${textOf(result).slice(0, 300)}`).toEqual([]);
}

const line0 = (lines: string) => lines.split('\n')[0];

describe('fuzz: hostile calls to every tool through a real client (finding 12)', () => {
  it(
    'never crashes or hangs, names a field in every refusal, sends no traversed path, leaks no secret in any form, shows no hidden character raw, and sends nothing for a re-encoded token',
    async () => {
      const deadline = Date.now() + TIME_LIMIT_MS;
      // Every catalog tool, and server_info, which every toolset lists.
      expect(tools.map((tool) => tool.name).sort()).toEqual([...catalog.flatMap((group) => group.tools).map((tool) => tool.name), 'server_info'].sort());
      let calls = 0;
      for (let round = 0; round === 0 || Date.now() < deadline; round++) {
        for (const [index, tool] of tools.entries()) {
          await fc.assert(
            fc.asyncProperty(argsFor(tool), fc.gen(), async (args, pick) => {
              const sentBefore = apiRequests(sandbox).length;
              calls++;
              const result = await connection.call(tool.name, args, { timeout: CALL_TIMEOUT_MS });
              checkResult(tool, args, result, sentBefore);
              await checkTokenForm(tool, args, pick);
            }),
            { numRuns: RUNS_PER_TOOL, seed: SEED_USED + round * tools.length + index, endOnFailure: true },
          );
        }
      }
      console.log(`fuzz: ${calls} calls over ${tools.length} tools`);
      // The server is still up and answering.
      expect((await connection.client.listTools()).tools.length).toBe(tools.length);
    },
    TIME_LIMIT_MS + 60_000,
  );
});
