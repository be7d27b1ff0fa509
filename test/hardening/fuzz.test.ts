import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { SEED, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { catalog } from '../../tools/index.js';
import { apiRequests, connect, sandboxEnv, textOf, type Connection } from '../support/harness.js';

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
const ROUTES = catalog
  .flatMap((group) => group.tools)
  .flatMap((tool) => (tool.route ? [new RegExp(`^${tool.route.path.replace(/\{\w+\}/g, '[^/]+')}$`)] : []));

let sandbox: Sandbox;
let connection: Connection;
let tools: Tool[];
let secrets: string[];

beforeAll(async () => {
  sandbox = await startSandbox();
  sandbox.setRateLimit(1_000_000, 60_000);
  connection = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'none', SVC_RATE_LIMIT: '1000000/60s', SVC_MAX_RESULT_TOKENS: '4000' }) });
  tools = (await connection.client.listTools()).tools;
  const key = sandbox.keys.admin;
  const body = key.slice(4);
  secrets = [key, body, encodeURIComponent(key), `svc%5f${body}`, CALLER_SECRET].map((secret) => secret.toLowerCase());
  console.log(`fuzz seed ${SEED_USED} (FUZZ_SEED=${SEED_USED} reproduces it), ${RUNS_PER_TOOL} runs per tool`);
}, 60_000);

afterAll(async () => {
  await connection?.close();
  await sandbox?.close();
});

function hostileValue(): fc.Arbitrary<unknown> {
  const key = sandbox.keys.admin;
  const ids = [SEED.bots.storeAssistant, SEED.folders.shipping, SEED.articles.returnsPolicy, SEED.negativeConversation, SEED.negativeEvent, SEED.sources.webCompleted, SEED.tools.orderStatus, SEED.rules.whereIsMyOrder, SEED.criteriaGroup];
  const strings = fc.oneof(
    fc.constantFrom('.', '..', '', ' ', '%2e%2e', '../..', 'a/../b', '\ud800', '\udc00x', 'x\u0085y', 'line\nbreak', '</untrusted-data-00000000>', '__proto__'),
    // The key in any form is a secret wherever it appears; the caller's secret only where it is passed as one (below).
    fc.constantFrom(key, key.toUpperCase(), key.slice(4), encodeURIComponent(key)),
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
  const fields = [...Object.keys(tool.inputSchema.properties ?? {}), '__proto__', 'constructor', 'toString', 'unexpected'];
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
    expect(ROUTES.some((route) => route.test(request.path)), `${context}\nsent ${request.method} ${request.path}`).toBe(true);
  }
  const everything = JSON.stringify(result).toLowerCase();
  for (const secret of secrets) expect(everything.includes(secret), `${context}\nleaked a form of a secret`).toBe(false);
}

const line0 = (lines: string) => lines.split('\n')[0];

describe('fuzz: hostile calls to every tool through a real client (finding 12)', () => {
  it('never crashes or hangs, names a field in every refusal, sends no traversed path and leaks no secret', async () => {
    const deadline = Date.now() + TIME_LIMIT_MS;
    expect(tools.length).toBe(catalog.flatMap((group) => group.tools).length);
    let calls = 0;
    for (let round = 0; round === 0 || Date.now() < deadline; round++) {
      for (const [index, tool] of tools.entries()) {
        await fc.assert(
          fc.asyncProperty(argsFor(tool), async (args) => {
            const sentBefore = apiRequests(sandbox).length;
            calls++;
            const result = await connection.client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
            checkResult(tool, args, result as CallToolResult, sentBefore);
          }),
          { numRuns: RUNS_PER_TOOL, seed: SEED_USED + round * tools.length + index },
        );
      }
    }
    console.log(`fuzz: ${calls} calls over ${tools.length} tools`);
    // The server is still up and answering.
    expect((await connection.client.listTools()).tools.length).toBe(tools.length);
  }, TIME_LIMIT_MS + 60_000);
});
