import { describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/sandbox/types.js';
import { textOf } from '../support/harness.js';
import { structured, useConnection, useSandbox } from '../support/fixture.js';
import { independentCount } from '../support/stats-count.js';

const DAY = 86_400_000;
const sandbox = useSandbox({ conversations: 1500, rateLimit: 'off' });
const env = { SVC_MIRROR: 'memory', SVC_RATE_LIMIT: '100000/60s', SVC_CONFIRM: 'none' };
const mirrored = useConnection(sandbox, { env });
const direct = useConnection(sandbox, { env: { ...env, SVC_MIRROR: 'off' } });
const { workspace, listedIn } = independentCount(() => sandbox);

/** Rated agent answers of conversations, counted straight from the sandbox, per agent: [rated, thumbs-down]. */
function ratedByAgent(conversations: Conversation[]): Map<string, [number, number]> {
  const counts = new Map<string, [number, number]>();
  for (const conversation of conversations) {
    for (const event of conversation.events) {
      if (event.role !== 'svcbot' || event.approved === null) continue;
      const [rated, down] = counts.get(conversation.botId) ?? [0, 0];
      counts.set(conversation.botId, [rated + 1, down + (event.approved ? 0 : 1)]);
    }
  }
  return counts;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

describe('explain_change', () => {
  it('splits the change of the thumbs-down rate into parts that add up to it, per agent, source, channel and article, with counts as the data says', async () => {
    const until = Date.now() - 60_000;
    const since = until - 30 * DAY;
    const result = await mirrored.call('explain_change', { since, until });
    const data = structured(result);
    const now = ratedByAgent(listedIn(since, until));
    const before = ratedByAgent(listedIn(2 * since - until - 1, since - 1));
    for (const mover of data.movers.agent) {
      expect(mover.now.units).toBe(now.get(mover.id)?.[0] ?? 0);
      expect(mover.before.units).toBe(before.get(mover.id)?.[0] ?? 0);
    }
    const rate = (counts: Map<string, [number, number]>) => sum([...counts.values()].map(([, down]) => down)) / sum([...counts.values()].map(([rated]) => rated));
    expect(data.change).toBeCloseTo(rate(now) - rate(before), 3);
    for (const dimension of ['agent', 'source', 'channel']) {
      expect(sum(data.movers[dimension].map((mover: { part: number }) => mover.part)), dimension).toBeCloseTo(data.change, 2);
    }
    expect(data.movers.article.length).toBeGreaterThan(0);
    expect(textOf(result).length).toBeLessThan(8000);
    expect(textOf(result)).toMatch(/Not shown by the API: sources/);
  });

  it('gives the same movers from the mirror and from the API', async () => {
    const until = Date.now() - 60_000;
    for (const ask of [
      { since: until - 14 * DAY, until },
      { since: until - 60 * DAY, until, metric: 'csat' },
      { since: until - 45 * DAY, until, metric: 'escalations', channel: ['chat'] },
    ]) {
      const fromMirror = structured(await mirrored.call('explain_change', ask));
      const fromApi = structured(await direct.call('explain_change', ask));
      expect(fromMirror.asOf).toEqual(expect.any(String));
      for (const key of ['now', 'before', 'change', 'movers', 'moversLeftOut', 'small']) expect(fromMirror[key], `${key} of ${JSON.stringify(ask)}`).toEqual(fromApi[key]);
    }
  });

  it('shows the sentences an article edit changed, once the mirror has seen the version before', async () => {
    await mirrored.call('sync_workspace', {});
    const article = [...workspace().articles.values()].find((candidate) => !candidate.isDraft && candidate.mainKnowledge.includes('.'))!;
    const edited = `${article.mainKnowledge} Orders ship within two business days from our new warehouse.`;
    structured(await mirrored.call('update_article', { articleId: article.id, mainKnowledge: edited }));
    const text = textOf(await mirrored.call('explain_change', { since: '7d' }));
    expect(text).toContain(article.id);
    expect(text).toContain('Orders ship within two business days from our new warehouse.');
    expect(text).toMatch(/compared with version \d+/);
  });
});

describe('measure_change', () => {
  it("measures an article's last update on the conversations that used it, with an interval and a plain verdict", async () => {
    // The live article updated longest ago, with an after window that ends in the past: both servers read the same windows.
    const article = [...workspace().articles.values()].filter((candidate) => !candidate.isDraft).sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))[0];
    const days = Math.min(60, Math.floor((Date.now() - Date.parse(article.updatedAt)) / DAY) - 1);
    expect(days).toBeGreaterThan(0);
    const result = await mirrored.call('measure_change', { articleId: article.id, days });
    const data = structured(result);
    const at = Date.parse(data.moment);
    const used = (conversation: Conversation) => conversation.events.some((event) => event.role === 'svcbot' && event.usedArticles.some((used) => used.id === article.id));
    const after = listedIn(Date.parse(data.after.since), Date.parse(data.after.until)).filter(used);
    const before = listedIn(Date.parse(data.before.since), Date.parse(data.before.until)).filter(used);
    expect(Date.parse(data.before.until)).toBe(at - 1);
    expect(Date.parse(data.after.until) - Date.parse(data.after.since)).toBe(Date.parse(data.before.until) - Date.parse(data.before.since));
    const counts = (list: Conversation[]) => sum([...ratedByAgent(list).values()].map(([rated]) => rated));
    expect(data.after.conversations).toBe(after.length);
    expect(data.before.conversations).toBe(before.length);
    expect(data.after.rated).toBe(counts(after));
    expect(data.before.rated).toBe(counts(before));
    // The verdict opens the answer, after the one-line notice about third-party text.
    expect(
      textOf(result)
        .split('\n')
        .find((line) => !line.startsWith('Text inside <untrusted-data-')),
    ).toMatch(/^(No rated answer|The thumbs-down rate (rose|fell|moved))/);
    const fromApi = structured(await direct.call('measure_change', { articleId: article.id, days }));
    expect(fromApi.after).toEqual(data.after);
    expect(fromApi.before).toEqual(data.before);
  });

  it('takes an article or a moment, not both nor neither, naming the field', async () => {
    for (const args of [{}, { articleId: 'a', at: '2d' }]) {
      const result = await mirrored.call('measure_change', args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/articleId: give articleId or at/);
    }
  });
});
