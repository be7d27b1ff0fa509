import { z } from 'zod';
import { defineTool, type ToolGroup } from '../src/engine/define.js';
import { idInput } from '../src/engine/inputs.js';
import { isRecord } from '../src/engine/output.js';
import { defined, UNTRUSTED_TEXT } from './common.js';
import { shape } from './shapes.js';

/** A version in both views: compact keeps these, full adds `item` (and `flowConfig` in one version). */
const ruleVersion = shape({ versionId: z.string(), version: z.number() }, { active: z.boolean() });

const ERRORS_400 = 'the rule is a business rule (the version routes serve intent rules only) or a path parameter is empty';
const ERRORS_404_LIST = 'no intent rule with this ruleId in the workspace (no API route lists rules: take rule ids from the dashboard or from a refine session\'s proposed changes)';

/**
 * The version-list response's top-level names are not documented: the versions are the first
 * array in it, and the active version is `activeVersionId` (or a similar name), else the PUBLISHED one.
 */
function normaliseVersionList(response: unknown, ruleId: string): Record<string, unknown> {
  const body = isRecord(response) ? response : {};
  const versions = (Array.isArray(response) ? response : (Object.values(body).find(Array.isArray) as unknown[] | undefined) ?? []).filter(isRecord);
  const named = ['activeVersionId', 'publishedVersionId', 'activePublishedVersionId'].map((key) => body[key]).find((value) => value !== undefined);
  const published = versions.find((version) => isRecord(version.item) && version.item.status === 'PUBLISHED');
  const activeVersionId = named !== undefined ? named : (published?.versionId ?? null);
  return {
    ...body,
    ruleId: body.ruleId ?? body.id ?? ruleId,
    activeVersionId,
    versions: versions.map((version) => ({ ...version, active: version.versionId === activeVersionId })),
  };
}

const listRuleVersions = defineTool({
  name: 'list_rule_versions',
  title: 'List versions of an intent rule',
  group: 'rules',
  scope: 'read',
  description:
    'Lists the version history of one intent rule (published, draft and historical; without flowConfig) and which version is active. Business rules are refused (400). Use get_rule_version for one version\'s full flow.',
  input: z.object({ ruleId: idInput('Intent rule id (from the dashboard or a refine session change).') }),
  route: { method: 'GET', path: '/v2/hc-rules/{ruleId}/versions/public' },
  transform: (response, input) => normaliseVersionList(response, input.ruleId),
  output: shape({ ruleId: z.string(), activeVersionId: z.string().nullable(), versions: z.array(ruleVersion) }),
  list: {
    items: 'versions',
    compact: (version) => {
      const item = isRecord(version.item) ? version.item : {};
      return defined({ versionId: version.versionId, version: version.version, status: item.status, active: version.active, name: item.name, createdAt: version.createdAt, createdBy: version.createdBy });
    },
    more: 'Use view "full" for every field, or get_rule_version for one version.',
  },
  untrusted: UNTRUSTED_TEXT,
  errors: { 400: ERRORS_400, 404: ERRORS_404_LIST },
});

const getRuleVersion = defineTool({
  name: 'get_rule_version',
  title: 'Get one intent rule version',
  group: 'rules',
  scope: 'read',
  description:
    'Reads one version (published, draft or historical) of an intent rule with its full flowConfig. versionId comes from list_rule_versions (e.g. "v2"). Business rules are refused (400).',
  input: z.object({ ruleId: idInput('Intent rule id.'), versionId: idInput('Version id from list_rule_versions, e.g. v2.') }),
  route: { method: 'GET', path: '/v2/hc-rules/{ruleId}/versions/{versionId}/public' },
  transform: (response, input) => ({
    ruleId: input.ruleId,
    versionId: input.versionId,
    versions: Array.isArray(response) ? response : response === null || response === undefined ? [] : [response],
  }),
  output: shape({ ruleId: z.string(), versionId: z.string(), versions: z.array(ruleVersion) }),
  untrusted: UNTRUSTED_TEXT,
  errors: {
    400: ERRORS_400,
    404: 'the rule or version does not exist in the workspace, or the version belongs to another rule (list_rule_versions {ruleId} lists this rule\'s versions)',
  },
});

export const rules: ToolGroup = {
  name: 'rules',
  description: 'Versions of intent rules.',
  tools: [listRuleVersions, getRuleVersion],
  resources: [
    {
      name: 'rule-versions',
      title: 'Intent rule versions',
      description: 'Version history of one intent rule.',
      uri: 'svc://rules/{ruleId}/versions',
      tool: 'list_rule_versions',
    },
    {
      name: 'rule-version',
      title: 'One intent rule version',
      description: 'One version of an intent rule with its full flow configuration.',
      uri: 'svc://rules/{ruleId}/versions/{versionId}',
      tool: 'get_rule_version',
    },
  ],
};
