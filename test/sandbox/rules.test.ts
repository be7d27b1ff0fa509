/** The sandbox's rules routes (src/sandbox/routes/), over raw HTTP. */
import { describe, expect, it } from 'vitest';
import { seedId } from '../../src/sandbox/ids.js';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

const sb = useSandbox(() => start());

describe('intent rule versions', () => {
  const rule = () => sb.seed.rules.whereIsMyOrder;
  it('lists history without flowConfig, newest first, with the active published version', async () => {
    const { status, body } = await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions/public`);
    expect(status).toBe(200);
    expect(body.ruleId).toBe(rule());
    expect(body.activeVersionId).toBe('v2');
    expect(body.versions.map((v: { versionId: string }) => v.versionId)).toEqual(['v3', 'v2', 'v1']);
    expect(body.versions.filter((v: { item: { status: string } }) => v.item.status === 'PUBLISHED')).toHaveLength(1);
    for (const v of body.versions) expect(v.item).not.toHaveProperty('flowConfig');
  });
  it('reads one version with its flowConfig, as an array', async () => {
    const { status, body } = await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions/v3/public`);
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ versionId: 'v3', version: 3, item: { status: 'DRAFT', flowConfig: { type: 'message' } } });
  });
  it("answers 400 for business rules and empty parameters, 404 for absent rules and other rules' versions", async () => {
    expect((await call(sb, 'GET', `/v2/hc-rules/${sb.seed.rules.refundApproval}/versions/public`)).status).toBe(400);
    expect((await call(sb, 'GET', `/v2/hc-rules/${sb.seed.rules.refundApproval}/versions/v1/public`)).status).toBe(400);
    expect((await call(sb, 'GET', '/v2/hc-rules//versions/public')).status).toBe(400);
    expect((await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions//public`)).status).toBe(400);
    expect((await call(sb, 'GET', `/v2/hc-rules/${seedId('rule', 'a', 9)}/versions/public`)).status).toBe(404);
    expect((await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions/v9/public`)).status).toBe(404);
    expect((await call(sb, 'GET', `/v2/hc-rules/${rule()}/versions/v1/public`, { key: sb.keys.readOnly })).status).toBe(200);
  });
});
