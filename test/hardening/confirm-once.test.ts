import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, sandboxEnv, type Connection } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';
import { runRedisTests, startRedis, type RedisServer } from '../support/redis.js';
import { applyVariant, variantRecipe } from '../support/token-variants.js';

/** A write sends at most once per token (design 10.1): the sandbox's own record of what arrived is the judge. */
const sandbox = useSandbox();
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-spent-'));
const SECRET = 'a-fleet-secret-of-at-least-32-characters-0123456789';

afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const createFolder = (connection: Connection, args: Record<string, unknown>): Promise<CallToolResult> => connection.call('create_folder', args);

async function tokenFor(connection: Connection, name: string): Promise<string> {
  const preview = await createFolder(connection, { name });
  return (preview.structuredContent as { confirmToken: string }).confirmToken;
}

/** The folder creations the API received for this name. */
const creations = (name: string) => sandbox.requests.filter((request) => request.method === 'POST' && (request.body as { name?: string } | undefined)?.name === name).length;

/** Submits a token with its re-encodings and copies all at once, run after run: exactly one write each time. */
async function sendsOnce(connection: Connection, label: string): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(variantRecipe, { minLength: 3, maxLength: 6 }), fc.integer({ min: 2, max: 3 }), async (recipes, copies) => {
      const name = `once-${process.pid}-${label}-${run++}`;
      const token = await tokenFor(connection, name);
      const variants = recipes.map((recipe) => applyVariant(recipe, token));
      const submissions = [...variants, ...Array.from({ length: copies }, () => token)];
      const results = await Promise.all(submissions.map((confirm) => createFolder(connection, { name, confirm })));
      expect(creations(name)).toBe(1);
      expect(results.filter((result) => !result.isError)).toHaveLength(1);
      const refused = results.map((result) => (result.structuredContent as { refused?: string }).refused).filter(Boolean);
      expect(refused.filter((reason) => reason === 'spent')).toHaveLength(copies - 1);
      expect(refused.filter((reason) => reason !== 'spent').every((reason) => reason === 'invalid' || reason === 'mismatch')).toBe(true);
    }),
    { numRuns: 8 },
  );
}

describe.each([
  ['memory', 'per-process secret, spent tokens in memory', {}],
  ['files', 'SVC_CONFIRM_SECRET, spent tokens under SVC_STATE_DIR', { SVC_CONFIRM_SECRET: SECRET }],
])('a token and its re-encodings sent at once (%s: %s)', (label, _, env: Record<string, string>) => {
  const connection = useConnection(sandbox, { env: { ...env, SVC_STATE_DIR: stateDir } });

  it('give exactly one write; every re-encoding is refused as not a token', () => sendsOnce(connection, label));
});

/** Anything shaped like a confirmToken, anywhere in a result: its text, structure and `_meta`. */
const tokensIn = (result: CallToolResult) => JSON.stringify(result).match(/[0-9a-z]{1,12}\.[\w-]{11}\.[\w-]{43}/g) ?? [];

describe('a headless loop that sends whatever token a refusal carries (issue 33)', () => {
  const loop = useConnection(sandbox, { env: { SVC_STATE_DIR: stateDir } });

  it('finds none, whatever the refusal: wrong arguments, another tool, not a token, spent', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('mismatch', 'other tool', 'invalid', 'spent'), fc.string({ maxLength: 8 }), async (reason, garbage) => {
        const name = `loop-${process.pid}-${run++}`;
        const token = await tokenFor(loop, name);
        if (reason === 'spent') await createFolder(loop, { name, confirm: token });
        const refused =
          reason === 'mismatch'
            ? await createFolder(loop, { name: `${name}-other`, confirm: token })
            : reason === 'other tool'
              ? await loop.call('delete_folder', { folderId: sandbox.seed.folders.shipping, confirm: token })
              : reason === 'invalid'
                ? await createFolder(loop, { name, confirm: `${garbage}.${token}` })
                : await createFolder(loop, { name, confirm: token });
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent).toMatchObject({ sent: false, refused: reason === 'other tool' ? 'mismatch' : reason });
        // The loop's next turn: nothing in the refusal can send, because nothing in it is a token.
        expect(tokensIn(refused)).toEqual([]);
        expect(creations(`${name}-other`)).toBe(0);
        expect(creations(name)).toBe(reason === 'spent' ? 1 : 0);
      }),
      { numRuns: 24 },
    );
  });
});

describe.runIf(runRedisTests())('a token and its re-encodings sent at once to two nodes sharing Redis', () => {
  let redis: RedisServer;
  let nodes: Connection[];
  beforeAll(async () => {
    redis = await startRedis();
    const env = sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM_SECRET: SECRET, SVC_REDIS_URL: redis.url });
    nodes = await Promise.all([connect({ env }), connect({ env })]);
  });
  afterAll(async () => {
    await Promise.all((nodes ?? []).map((node) => node.close()));
    await redis?.stop();
  });

  it('give exactly one write across the nodes', async () => {
    const name = `once-${process.pid}-redis`;
    const token = await tokenFor(nodes[0], name);
    const variants = [`0${token}`, ` ${token}`, token.toUpperCase(), token, token, token];
    const results = await Promise.all(variants.map((confirm, index) => createFolder(nodes[index % 2], { name, confirm })));
    expect(creations(name)).toBe(1);
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
  });
});

describe('a spent token after a restart (SVC_CONFIRM_SECRET, SVC_STATE_DIR)', () => {
  const env = () => sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM_SECRET: SECRET, SVC_STATE_DIR: stateDir });

  it('is refused by the next process, and a token whose send failed midway is spent too', async () => {
    const first = await connect({ env: env() });
    const sentName = `restart-sent-${process.pid}`;
    const sentToken = await tokenFor(first, sentName);
    expect((await createFolder(first, { name: sentName, confirm: sentToken })).isError).toBeFalsy();
    // The write reaches the API and the connection drops before any answer: the process cannot know whether it took.
    const droppedName = `restart-dropped-${process.pid}`;
    const droppedToken = await tokenFor(first, droppedName);
    sandbox.injectFaults([{ method: 'POST', path: '/v2/hc-folders/public', drop: true }]);
    expect((await createFolder(first, { name: droppedName, confirm: droppedToken })).isError).toBe(true);
    // A token previewed but never used stays good across the restart.
    const unusedName = `restart-unused-${process.pid}`;
    const unusedToken = await tokenFor(first, unusedName);
    await first.close();

    const second = await connect({ env: env() });
    try {
      for (const [name, token] of [
        [sentName, sentToken],
        [droppedName, droppedToken],
      ]) {
        const again = await createFolder(second, { name, confirm: token });
        expect(again.isError).toBe(true);
        expect(again.structuredContent).toMatchObject({ sent: false, refused: 'spent' });
      }
      expect(creations(sentName)).toBe(1);
      expect(sandbox.requests.filter((request) => (request.body as { name?: string } | undefined)?.name === droppedName)).toHaveLength(1);
      expect((await createFolder(second, { name: unusedName, confirm: unusedToken })).isError).toBeFalsy();
      expect(creations(unusedName)).toBe(1);
    } finally {
      await second.close();
    }
  });
});

describe('a fleet without Redis: one shared SVC_CONFIRM_SECRET, each node its own state folder (issue 32)', () => {
  const folders = Array.from({ length: 3 }, () => mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-node-')));
  let nodes: Connection[];
  beforeAll(async () => {
    nodes = await Promise.all(folders.map((folder) => connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM_SECRET: SECRET, SVC_STATE_DIR: folder }) })));
  });
  afterAll(async () => {
    await Promise.all((nodes ?? []).map((node) => node.close()));
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('sends a token once, through the node that issued it; every other node refuses it and says why', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 3 }), async (issuer, copies) => {
        const name = `fleet-${process.pid}-${run++}`;
        const token = await tokenFor(nodes[issuer], name);
        const sends = nodes.flatMap((node) => Array.from({ length: copies }, () => node));
        const results = await Promise.all(sends.map((node) => createFolder(node, { name, confirm: token })));
        expect(creations(name)).toBe(1);
        const reasons = results.map((result) => (result.structuredContent as { refused?: string }).refused ?? 'sent');
        expect(reasons.filter((reason) => reason === 'sent')).toHaveLength(1);
        expect(reasons.filter((reason) => reason === 'spent')).toHaveLength(copies - 1);
        expect(reasons.filter((reason) => reason === 'elsewhere')).toHaveLength(2 * copies);
        const elsewhere = results.find((result) => (result.structuredContent as { refused?: string }).refused === 'elsewhere')!;
        expect((elsewhere.structuredContent as { message: string }).message).toMatch(/issued by another server, whose spent store \([0-9a-f]{12}\) is not this one's \([0-9a-f]{12}\)/);
      }),
      { numRuns: 6 },
    );
  });
});
