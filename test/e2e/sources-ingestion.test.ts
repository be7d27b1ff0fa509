/**
 * The sources tools (tools/sources.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process. Here: how ingestion ends, with jobs that end on
 * their first read.
 */
import { describe, expect, it } from 'vitest';
import { textOf } from '../support/harness.js';
import { useServer } from '../support/fixture.js';

// Jobs end on their first read, so no test waits on a clock.
const { call } = useServer({ sandbox: { jobTimings: { pendingMs: 0, inProgressMs: 0 } }, env: { SVC_CONFIRM: 'none' } });

const FAILING: Array<[string, string, RegExp]> = [
  ['authentication-protected', 'https://northwind-outfitters.example/private/dealer-prices', /HTTP 401 \(the page requires authentication\)/],
  ['robots exclusion', 'https://northwind-outfitters.example/no-robots/size-charts', /robots\.txt \(robots exclusion\)/],
  ['unextractable content type', 'https://northwind-outfitters.example/downloads/catalog.zip', /Unsupported content type application\/zip: no text could be extracted/],
  ['unreachable host', 'https://help.northwind-outfitters.invalid/returns', /the host help\.northwind-outfitters\.invalid could not be reached/],
];

describe('ingest_sources: URLs that fail ingestion on purpose', () => {
  it.each(FAILING)('%s ends FAILED with its reason', async (_kind, url, reason) => {
    const result = await call('ingest_sources', { documentIdsToAdd: [url], wait: true, timeoutSeconds: 10 });
    expect(result.isError, textOf(result)).toBeFalsy();
    const wait = (result.structuredContent as Record<string, any>).wait;
    expect(wait).toMatchObject({ status: 'finished', finished: 1, total: 1 });
    const [source] = wait.sources;
    expect(source).toMatchObject({ url, status: 'FAILED', success: false });
    expect(source.error).toMatch(reason);
  });

  it('ingest_sources after a finished wait says how it ended, and its jobs show their last status', async () => {
    const urls = ['https://northwind-outfitters.example/help/jacket-care', 'https://northwind-outfitters.example/private/wholesale-prices'];
    const result = await call('ingest_sources', { documentIdsToAdd: urls, wait: true, timeoutSeconds: 10 });
    const [first] = textOf(result).split('\n');
    expect(first).toBe('2 ingestion job(s) queued and finished: 1 COMPLETED, 1 FAILED; next: generate_knowledge for the COMPLETED ones.');
    const data = result.structuredContent as { jobs: Array<{ status: string }> };
    expect(data.jobs.map((job) => job.status).sort()).toEqual(['COMPLETED', 'FAILED']);
    const queued = textOf(await call('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/rain-jackets'] })).split('\n')[0];
    expect(queued).toContain('queued; next: wait_for_sources');
  });

  it('still completes an ordinary page on the same site', async () => {
    const url = 'https://northwind-outfitters.example/help/rain-jackets';
    const result = await call('ingest_sources', { documentIdsToAdd: [url], wait: true, timeoutSeconds: 10 });
    expect((result.structuredContent as Record<string, any>).wait.sources[0]).toMatchObject({ url, status: 'COMPLETED', success: true });
  });
});
