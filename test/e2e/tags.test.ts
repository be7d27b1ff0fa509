/**
 * The tags tools (tools/tags.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { apiRequests, textOf } from '../support/harness.js';
import { structured, useConnection, useServer } from '../support/fixture.js';
import { expectListing, expectNothingSecret, expectRefused, resultLog } from '../support/tool-checks.js';

const log = resultLog();
const { sandbox, server, call } = useServer({ env: { SVC_CONFIRM: 'none' }, onResult: log.keep });
const guarded = useConnection(sandbox, { env: { SVC_CONFIRM: 'destructive' }, onResult: log.keep });

describe('tools/list', () => {
  it('lists create_tag with its hints and output schema', async () => {
    await expectListing(server, { tools: ['create_tag'], outputs: ['create_tag'] });
  });
});

describe('each tool reaches its route', () => {
  it('create_tag: creates a tag', async () => {
    const tag = structured(await call('create_tag', { tagGroupId: sandbox.seed.tagGroups.topics, tagName: 'sizing' }));
    expect(tag).toMatchObject({ tagName: 'sizing', tagGroupId: sandbox.seed.tagGroups.topics });
    expect(apiRequests(sandbox).map((request) => [`${request.method} ${request.path}`, request.body])).toEqual([
      [`POST /v2/tag-groups/${sandbox.seed.tagGroups.topics}/tags/public`, { tagName: 'sizing' }],
    ]);
  });
});

describe('documented rules are refused before sending', () => {
  it('names the field and sends nothing', async () => {
    await expectRefused(call, sandbox, [
      ['create_tag', { tagGroupId: 'g', tagName: '   ' }, 'tagName: must not be empty'],
      ['create_tag', { tagGroupId: 'g' }, 'tagName: is required'],
    ]);
  });
});

describe('errors explained', () => {
  it('explains the unknown tag group 500', async () => {
    const tag = await call('create_tag', { tagGroupId: seedId('tagGroup', 'a', 77), tagName: 'x' });
    expect(textOf(tag)).toContain('probably unknown');
  });
});

describe('confirmation under SVC_CONFIRM=destructive', () => {
  it('create_tag: a plain write goes straight through', async () => {
    const tag = await guarded.call('create_tag', { tagGroupId: sandbox.seed.tagGroups.topics, tagName: 'no-confirm-needed' });
    expect(tag.structuredContent).toMatchObject({ tagName: 'no-confirm-needed' });
    expect(apiRequests(sandbox).map((request) => request.body)).toEqual([{ tagName: 'no-confirm-needed' }]);
    const { tools } = await guarded.client.listTools();
    expect('confirm' in ((tools.find((tool) => tool.name === 'create_tag')!.inputSchema.properties ?? {}) as object)).toBe(false);
  });
});

describe('secrets never leave', () => {
  it('shows no API key in any result or log line, nor in a preview', () => {
    expectNothingSecret(log, [server, guarded], Object.values(sandbox.keys));
  });
});
