import { describe, expect, it } from 'vitest';
import { SEED, startSandbox } from '../../src/sandbox/index.js';
import { Router } from '../../src/sandbox/router.js';
import { advanceJob, liveArticlesForBot, maskValues } from '../../src/sandbox/state.js';

describe('seed', () => {
  it('is deterministic, recent and complete', async () => {
    let t = Date.UTC(2030, 0, 15);
    const a = await startSandbox({ now: () => t });
    const b = await startSandbox({ now: () => t });
    try {
      const wa = a.state.workspaces.get(SEED.workspaceA)!;
      const wb = b.state.workspaces.get(SEED.workspaceA)!;
      expect([...wa.conversations.keys()]).toEqual([...wb.conversations.keys()]);
      expect(wa.conversations.size).toBe(41);
      const ages = [...wa.conversations.values()].map((c) => (t - c.createdAt) / 86_400_000);
      expect(Math.max(...ages)).toBeLessThan(120);
      expect(ages.filter((d) => d > 90).length).toBeGreaterThan(0);
      expect(ages.filter((d) => d < 7).length).toBeGreaterThanOrEqual(10);

      expect(wa.bots.size).toBe(2);
      expect(wa.folders.get(SEED.folders.international)!.parentFolderId).toBe(SEED.folders.shipping);
      const live = [...wa.articles.values()].filter((x) => !x.isDraft);
      const drafts = [...wa.articles.values()].filter((x) => x.isDraft);
      expect(live.length).toBeGreaterThanOrEqual(6);
      expect(drafts.map((d) => d.originalArticleId)).toEqual([SEED.articles.returnsPolicy, null]);
      expect(liveArticlesForBot(wa, SEED.bots.storeAssistant).length).toBeGreaterThan(0);
      expect(liveArticlesForBot(wa, SEED.bots.emailSupport).length).toBeGreaterThan(0);
      expect(liveArticlesForBot(wa, SEED.bots.storeAssistant).map((x) => x.id)).not.toContain(SEED.articles.holidayCutoffs);

      expect([...wa.sources.values()].map((s) => [s.source, s.linkedJobStatus])).toEqual([
        ['web', 'COMPLETED'],
        ['web', 'FAILED'],
        ['notes', 'COMPLETED'],
      ]);
      expect(wa.sources.get(SEED.sources.webFailed)!.error).not.toBe('');
      expect([...wa.tools.values()].map((x) => x.alwaysGet)).toEqual([false, false, true]);
      const step = wa.dataSteps.get(SEED.dataSteps.orderStatusLookup)!;
      expect(step.url?.startsWith(a.url)).toBe(true);
      expect(maskValues(step.headers)).toEqual({ Authorization: { hide: true, value: '********' }, Accept: { hide: false, value: 'application/json' } });
      const rule = wa.rules.get(SEED.rules.whereIsMyOrder)!;
      expect(rule.versions.map((v) => v.item.status)).toEqual(['HISTORICAL', 'PUBLISHED', 'DRAFT']);
      expect(rule.activeVersionId).toBe('v2');
      expect(wa.rules.get(SEED.rules.refundApproval)!.kind).toBe('business');
      expect(wa.replays.get(SEED.replay)!.status).toBe('done');
      const session = wa.refineSessions.get(SEED.refineSession)!;
      expect(session).toMatchObject({ status: 'active', targetEventId: SEED.negativeEvent, targetUserEventId: SEED.negativeUserEvent });
      expect(wa.criteriaGroups.size).toBe(1);
      expect([...wa.testCases.values()].filter((c) => c.groupIds.includes(SEED.criteriaGroup))).toHaveLength(2);
      expect(wa.testSets.size).toBe(1);
      expect(wa.tagGroups.get(SEED.tagGroups.topics)!.custom).toBe(true);

      // the negatively rated svcbot event
      const neg = wa.conversations.get(SEED.negativeConversation)!;
      const ev = neg.events.find((e) => e.id === SEED.negativeEvent)!;
      expect(ev).toMatchObject({ role: 'svcbot', approved: false, resolved: false });

      // ingestion jobs progress with the clock
      const job = { ...wa.jobs.get(SEED.jobs.webCompleted)!, id: 'job_test', status: 'PENDING' as const, queuedAt: t };
      wa.jobs.set(job.id, job);
      const src = wa.sources.get(SEED.sources.webFailed)!;
      src.linkedJobId = job.id;
      src.linkedJobStatus = 'PENDING';
      job.documentId = src.id;
      advanceJob(a.state, wa, job);
      expect(src.linkedJobStatus).toBe('PENDING');
      t += 1500;
      advanceJob(a.state, wa, job);
      expect(src.linkedJobStatus).toBe('IN_PROGRESS');
      t += 1500;
      advanceJob(a.state, wa, job);
      expect(src).toMatchObject({ linkedJobStatus: 'COMPLETED', success: true, error: '' });
      expect(src.paragraphs.length).toBeGreaterThan(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('router', () => {
  it('prefers literal segments over parameters and keeps empty parameters', () => {
    const h = () => ({ body: null });
    const r = new Router([
      { method: 'POST', path: '/v2/hc-tools/{id}/public', scope: 'write', handler: h },
      { method: 'POST', path: '/v2/hc-tools/junctions/public', scope: 'write', handler: h },
      { method: 'GET', path: '/v2/hc-rules/{id}/versions/{versionId}/public', scope: 'read', handler: h },
    ]);
    expect(r.match('POST', '/v2/hc-tools/junctions/public')!.def.path).toBe('/v2/hc-tools/junctions/public');
    expect(r.match('POST', '/v2/hc-tools/abc/public')!.params).toEqual({ id: 'abc' });
    expect(r.match('GET', '/v2/hc-rules//versions/v1/public')!.params).toEqual({ id: '', versionId: 'v1' });
    expect(r.match('GET', '/v2/hc-rules/a%20b/versions/v1/public/')!.params.id).toBe('a b');
    expect(r.match('DELETE', '/v2/hc-tools/abc/public')).toBeUndefined();
    expect(() => r.add({ method: 'POST', path: '/v2/hc-tools/{x}/public', scope: 'write', handler: h })).toThrow(/duplicate/);
    expect(() => r.add({ method: 'POST', path: '/v2/hc-tools/junctions/public', scope: 'write', handler: h })).toThrow(/duplicate/);
  });
});
