/**
 * The rules tools (tools/rules.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import { describe, expect, it } from 'vitest';
import { apiRequests, textOf } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';
import { expectListing, expectNothingSecret, expectRefused, resultLog } from '../support/tool-checks.js';

const log = resultLog();
const { sandbox, server, call } = useServer({ env: { SVC_CONFIRM: 'none' }, onResult: log.keep });

describe('tools/list', () => {
  it('lists list_rule_versions and get_rule_version as reads with output schemas', async () => {
    await expectListing(server, { tools: ['list_rule_versions', 'get_rule_version'], reads: ['list_rule_versions', 'get_rule_version'], outputs: ['list_rule_versions', 'get_rule_version'] });
  });
});

describe('each tool reaches its route', () => {
  it('list_rule_versions, get_rule_version: read rule versions', async () => {
    const rule = sandbox.seed.rules.whereIsMyOrder;
    const versions = structured(await call('list_rule_versions', { ruleId: rule }));
    expect(versions).toMatchObject({ ruleId: rule, activeVersionId: 'v2' });
    expect(versions.versions.map((v: { versionId: string; status: string; active?: boolean }) => [v.versionId, v.status, v.active])).toEqual([
      ['v3', 'DRAFT', false],
      ['v2', 'PUBLISHED', true],
      ['v1', 'HISTORICAL', false],
    ]);
    const one = structured(await call('get_rule_version', { ruleId: rule, versionId: 'v2' }));
    expect(one.versions[0].item.flowConfig).toMatchObject({ type: 'message' });
    expect(apiRequests(sandbox).map((request) => `${request.method} ${request.path}`)).toEqual([`GET /v2/hc-rules/${rule}/versions/public`, `GET /v2/hc-rules/${rule}/versions/v2/public`]);
  });
});

describe('documented rules are refused before sending', () => {
  it('names the field and sends nothing', async () => {
    await expectRefused(call, sandbox, [['get_rule_version', { ruleId: 'r', versionId: ' ' }, 'versionId: must not be empty']]);
  });
});

describe('errors explained', () => {
  it("explains a version of another rule, and the business rule's 400", async () => {
    const otherRule = await call('get_rule_version', { ruleId: sandbox.seed.rules.whereIsMyOrder, versionId: 'v9' });
    expect(textOf(otherRule)).toContain('belongs to another rule (list_rule_versions');
    const business = await call('list_rule_versions', { ruleId: sandbox.seed.rules.refundApproval });
    expect(textOf(business)).toContain('(400): the rule is a business rule');
  });

  it.each([
    ['list_rule_versions', { ruleId: 'not-a-uuid' }, 'ruleId is not a UUID'],
    ['get_rule_version', { ruleId: 'not-a-uuid', versionId: 'v1' }, 'ruleId is not a UUID'],
  ])("%s with an id that is not a UUID gets the API's 400", async (name, args, hint) => {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(hint);
    expect(apiRequests(sandbox).at(-1)?.status).toBe(400);
  });
});

describe('compare_rule_versions', () => {
  const ruleId = () => sandbox.seed.rules.whereIsMyOrder;

  it('compares the active version with the one before it by default', async () => {
    const result = await call('compare_rule_versions', { ruleId: ruleId() });
    const data = structured(result);
    expect(data.from).toMatchObject({ versionId: 'v1', status: 'HISTORICAL', active: false });
    expect(data.to).toMatchObject({ versionId: 'v2', status: 'PUBLISHED', active: true });
    const message = data.changes.find((change: { path: string }) => change.path === 'flowConfig.message');
    expect(message.before).toContain('share the tracking link');
    expect(message.after).toContain('Look up order status');
    // What the rule does, apart from what every new version changes anyway.
    expect(data.changes.map((change: { path: string }) => change.path)).toEqual(['flowConfig.message']);
    expect(data.metadata.map((change: { path: string }) => change.path)).toEqual(['status', 'version', 'versionId', 'createdAt', 'updatedAt']);
    const text = textOf(result);
    expect(text).toMatch(/- flowConfig\.message: <untrusted-data-[0-9a-f]+>Ask for the order number, then share/);
    expect(text).toMatch(/^What the rule does: 1 field\(s\) changed:$/m);
    expect(text).toMatch(/^Metadata: status: HISTORICAL -> PUBLISHED; version: 1 -> 2;/m);
    expect(text.indexOf('flowConfig.message')).toBeLessThan(text.indexOf('Metadata:'));
    expect(apiRequests(sandbox).map((request) => request.path)).toEqual([
      `/v2/hc-rules/${ruleId()}/versions/public`,
      `/v2/hc-rules/${ruleId()}/versions/v1/public`,
      `/v2/hc-rules/${ruleId()}/versions/v2/public`,
    ]);
  });

  it('takes explicit versions without reading the history, and explains a version the rule lacks', async () => {
    const data = structured(await call('compare_rule_versions', { ruleId: ruleId(), fromVersionId: 'v2', toVersionId: 'v3' }));
    expect(data.to).toMatchObject({ versionId: 'v3', status: 'DRAFT' });
    expect(apiRequests(sandbox)).toHaveLength(2);
    const missing = await call('compare_rule_versions', { ruleId: ruleId(), toVersionId: 'v9' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('its versions: v3, v2, v1');
  });
});

describe('resources', () => {
  it('serves rule versions as resources', async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text(`svc://rules/${sandbox.seed.rules.whereIsMyOrder}/versions`)).toContain('PUBLISHED');
    expect(await text(`svc://rules/${sandbox.seed.rules.whereIsMyOrder}/versions/v1`)).toContain('flowConfig');
    const templates = (await server.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
    expect(templates).toEqual(expect.arrayContaining(['svc://rules/{ruleId}/versions', 'svc://rules/{ruleId}/versions/{versionId}']));
  });
});

describe('secrets never leave', () => {
  it('shows no API key in any result or log line, nor in a preview', () => {
    expectNothingSecret(log, [server], Object.values(sandbox.keys));
  });
});
