/**
 * Text that tells the right story (issue 21, items 7 and 9): done lines, previews that say which
 * fields change and show changed sentences whole, inputs typed as the spec documents them, and the
 * sandbox's 400 for ids that are not UUIDs.
 */
import { describe, expect, it } from 'vitest';
import { apiRequests, textOf } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';

const sandbox = useSandbox({ jobTimings: { pendingMs: 0, inProgressMs: 0 } });
/** Sends writes at once. */
const direct = useConnection(sandbox, { env: { SVC_CONFIRM: 'none' } });
/** Answers writes with a preview and a confirmToken (no elicitation). */
const previewing = useConnection(sandbox, { env: { SVC_CONFIRM: 'writes' } });

/** The preview's "What it does" lines, as the model reads them. */
async function effectOf(name: string, args: Record<string, unknown>): Promise<string[]> {
  const result = await previewing.call(name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  const data = result.structuredContent as { sent: boolean; effect: string[] };
  expect(data.sent).toBe(false);
  // An entry's third-party lines sit between tag lines of one envelope (issue 33): read without them.
  return data.effect.map((line) => line.replace(/\n {2}<\/?untrusted-data-[0-9a-f]+>(?=\n|$)/g, '').replace(/<\/?untrusted-data-[0-9a-f]+>/g, ''));
}

describe('done lines', () => {
  it('assign_folders_to_agent counts the assignments it added', async () => {
    const folder = (await direct.call('create_folder', { name: 'Express delivery' })).structuredContent as { id: string };
    const result = await direct.call('assign_folders_to_agent', { botId: sandbox.seed.bots.emailSupport, folderIds: [folder.id] });
    const [first] = textOf(result).split('\n');
    expect(first).toMatch(/^Agent \S+ now answers from \d+ folder\(s\) \(1 assignment\(s\) added\)/);
    expect(first).not.toContain('[object Object]');
    const again = textOf(await direct.call('assign_folders_to_agent', { botId: sandbox.seed.bots.emailSupport, folderIds: [folder.id] })).split('\n')[0];
    expect(again).toContain('(no new assignment(s) added)');
  });

  it('ingest_sources after a finished wait says how it ended, and its jobs show their last status', async () => {
    const urls = ['https://northwind-outfitters.example/help/jacket-care', 'https://northwind-outfitters.example/private/wholesale-prices'];
    const result = await direct.call('ingest_sources', { documentIdsToAdd: urls, wait: true, timeoutSeconds: 10 });
    const [first] = textOf(result).split('\n');
    expect(first).toBe('2 ingestion job(s) queued and finished: 1 COMPLETED, 1 FAILED; next: generate_knowledge for the COMPLETED ones.');
    const data = result.structuredContent as { jobs: Array<{ status: string }> };
    expect(data.jobs.map((job) => job.status).sort()).toEqual(['COMPLETED', 'FAILED']);
    const queued = textOf(await direct.call('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/rain-jackets'] })).split('\n')[0];
    expect(queued).toContain('queued; next: wait_for_sources');
  });
});

describe('previews say which fields change', () => {
  it('update_folder reads the folder and names the change', async () => {
    const effect = await effectOf('update_folder', { folderId: sandbox.seed.folders.shipping, name: 'Shipping' });
    expect(effect).toEqual([`Updates folder Shipping & Delivery (${sandbox.seed.folders.shipping}) in the top level:`, 'What it writes:\n  name: Shipping & Delivery -> Shipping']);
    const same = await effectOf('update_folder', { folderId: sandbox.seed.folders.shipping, name: 'Shipping & Delivery' });
    expect(same).toContain('No field changes: every value given equals the current one.');
    expect(apiRequests(sandbox).filter((request) => request.method === 'PUT')).toEqual([]);
  });

  it('update_action reads the action and names the changed fields and output fields', async () => {
    const effect = await effectOf('update_action', {
      toolId: sandbox.seed.tools.orderStatus,
      description: 'Looks up an order by number',
      outputSchema: [{ name: 'carrier', type: 'string' }],
    });
    expect(effect[0]).toMatch(/^Updates action .*\(/);
    expect(effect).toContainEqual(expect.stringMatching(/^ {2}description: .+ -> Looks up an order by number$/m));
    expect(effect).toContainEqual(expect.stringMatching(/^outputSchema: replaced by 1 field\(s\); adds carrier, drops /));
  });

  it('update_article: a body edit shows the changed sentence whole, with the sentence after it', async () => {
    const article = ((await direct.call('get_articles', { articleIds: [sandbox.seed.articles.returnsPolicy] })).structuredContent as { articles: Array<{ mainKnowledge: string }> }).articles[0];
    const effect = await effectOf('update_article', { articleId: sandbox.seed.articles.returnsPolicy, mainKnowledge: article.mainKnowledge.replace('30 days', '45 days') });
    const body = effect.find((line) => line.startsWith('What it writes:'))!.split('\n');
    expect(body).toEqual([
      'What it writes:',
      '  mainKnowledge:',
      '    - You can return unworn items with the original tags within 30 days of delivery for a full refund to the original payment method.',
      '    + You can return unworn items with the original tags within 45 days of delivery for a full refund to the original payment method.',
      expect.stringMatching(/^ {6}Start a return from Orders in your account/),
    ]);
  });
});

describe('inputs and errors as the spec documents them', () => {
  it('create_action sends without alwaysGet, which the spec names but does not require', async () => {
    const result = await direct.call('create_action', { name: 'Gift card balance' });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result).split('\n')[0]).toMatch(/^Action \S+ created/);
    expect(apiRequests(sandbox).at(-1)).toMatchObject({ method: 'POST', path: '/v2/hc-tools/public', body: { name: 'Gift card balance' } });
  });

  it.each([
    ['get_replay', { replayId: 'not-a-uuid' }, 'replayId must be a UUID'],
    ['list_rule_versions', { ruleId: 'not-a-uuid' }, 'ruleId is not a UUID'],
    ['get_rule_version', { ruleId: 'not-a-uuid', versionId: 'v1' }, 'ruleId is not a UUID'],
  ])("%s with an id that is not a UUID gets the API's 400", async (name, args, hint) => {
    const result = await direct.call(name, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(hint);
    expect(apiRequests(sandbox).at(-1)?.status).toBe(400);
  });
});
