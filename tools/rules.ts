import { z } from 'zod';
import { defineGroup, defineTool, type ToolContext } from '../src/engine/define.js';
import { ToolFailure } from '../src/engine/errors.js';
import { idInput } from '../src/engine/inputs.js';
import { isRecord, recordOf } from '../src/json.js';
import { defined } from './lib/records.js';
import { pathDiff, type Quote, renderHunks } from './lib/diff.js';
import type { PathChange, RuleComparison } from '../src/views/results.js';
import { shape } from './lib/shapes.js';
import { seenIn } from './lib/mirror/seen.js';

/** A version in both views: compact keeps these, full adds `item` (and `flowConfig` in one version). */
const ruleVersion = shape({ versionId: z.string(), version: z.number() }, { active: z.boolean() });

const ERRORS_400 = 'the rule is a business rule (the version routes serve intent rules only), ruleId is not a UUID, or a path parameter is empty';
const ERRORS_404_LIST = "no intent rule with this ruleId in the workspace (no API route lists rules: take rule ids from the dashboard or from a refine session's proposed changes)";

/**
 * The version-list response's top-level names are not documented: the versions are the first
 * array in it, and the active version is `activeVersionId` (or a similar name), else the PUBLISHED one.
 */
function normaliseVersionList(response: unknown, ruleId: string): Record<string, unknown> {
  const body = recordOf(response);
  const versions = (Array.isArray(response) ? response : ((Object.values(body).find(Array.isArray) as unknown[] | undefined) ?? [])).filter(isRecord);
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
  words: 'history revisions active changed times browse overview available existing current intent flow',
  gives: ['versionId', 'fromVersionId', 'toVersionId'],
  scope: 'read',
  description: "Shows an intent rule's version history and the active version. ruleId from the dashboard or a refine session.",
  input: z.object({ ruleId: idInput() }),
  route: { method: 'GET', path: '/v2/hc-rules/{ruleId}/versions/public' },
  keepMirror: seenIn('list_rule_versions', 'rule', (_data, input) => [input.ruleId]),
  transform: (response, input) => normaliseVersionList(response, input.ruleId),
  output: shape({ ruleId: z.string(), activeVersionId: z.string().nullable(), versions: z.array(ruleVersion) }),
  list: {
    items: 'versions',
    compact: (version) => {
      const item = recordOf(version.item);
      return defined({
        versionId: version.versionId,
        version: version.version,
        status: item.status,
        active: version.active,
        name: item.name,
        createdAt: version.createdAt,
        createdBy: version.createdBy,
      });
    },
    more: 'Use view "full" for every field, or get_rule_version for one version.',
  },
  errors: { 400: ERRORS_400, 404: ERRORS_404_LIST },
});

const getRuleVersion = defineTool({
  name: 'get_rule_version',
  title: 'Get one intent rule version',
  words: 'open read flow config look view details inspect fetch intent revision history',
  scope: 'read',
  description: 'Reads one version of an intent rule with its full flow. versionId (e.g. v2) from list_rule_versions.',
  input: z.object({ ruleId: idInput(), versionId: idInput() }),
  route: { method: 'GET', path: '/v2/hc-rules/{ruleId}/versions/{versionId}/public' },
  keepMirror: seenIn('get_rule_version', 'rule_version', (_data, input) => [`${input.ruleId}/${input.versionId}`]),
  transform: (response, input) => ({
    ruleId: input.ruleId,
    versionId: input.versionId,
    versions: Array.isArray(response) ? response : response === null || response === undefined ? [] : [response],
  }),
  output: shape({ ruleId: z.string(), versionId: z.string(), versions: z.array(ruleVersion) }),
  errors: {
    400: ERRORS_400,
    404: "the rule or version does not exist in the workspace, or the version belongs to another rule (list_rule_versions {ruleId} lists this rule's versions)",
  },
});

type Version = Record<string, unknown>;

/** Fields every new version changes anyway, shown apart from what the rule does. */
const METADATA = new Set(['status', 'version', 'versionId', 'createdAt', 'updatedAt']);

const numberOf = (version: Version) => (typeof version.version === 'number' ? version.version : Number.NEGATIVE_INFINITY);

/**
 * Picks the two versions: given ids as they are; by default the active published version and
 * the newest one before it. The history is read only when an id has to be chosen.
 */
async function chooseVersions(input: CompareRuleInput, context: ToolContext): Promise<{ fromVersionId: string; toVersionId: string; activeVersionId?: unknown }> {
  if (input.fromVersionId && input.toVersionId) return { fromVersionId: input.fromVersionId, toVersionId: input.toVersionId };
  const history = normaliseVersionList(await context.call('list_rule_versions', { ruleId: input.ruleId }), input.ruleId);
  const versions = (history.versions as Version[]).filter(isRecord);
  const known = versions.map((version) => String(version.versionId)).join(', ') || 'none';
  const toVersionId = input.toVersionId ?? (typeof history.activeVersionId === 'string' ? history.activeVersionId : undefined);
  if (!toVersionId) throw new ToolFailure(`Rule ${input.ruleId} has no active published version; give toVersionId (its versions: ${known}).`);
  const to = versions.find((version) => version.versionId === toVersionId);
  if (!to) throw new ToolFailure(`Rule ${input.ruleId} has no version ${toVersionId} (its versions: ${known}).`);
  const before = versions.filter((version) => numberOf(version) < numberOf(to)).sort((a, b) => numberOf(b) - numberOf(a))[0];
  const fromVersionId = input.fromVersionId ?? (before ? String(before.versionId) : undefined);
  if (!fromVersionId) throw new ToolFailure(`${toVersionId} is the first version of rule ${input.ruleId}: nothing before it to compare; give fromVersionId (its versions: ${known}).`);
  return { fromVersionId, toVersionId, activeVersionId: history.activeVersionId };
}

async function readVersion(context: ToolContext, ruleId: string, versionId: string): Promise<Version> {
  const response = await context.call('get_rule_version', { ruleId, versionId });
  const version = (Array.isArray(response) ? response : [response]).find(isRecord);
  if (!version) throw new ToolFailure(`The API returned no content for version ${versionId} of rule ${ruleId}.`);
  return version;
}

interface CompareRuleInput {
  ruleId: string;
  fromVersionId?: string;
  toVersionId?: string;
}

function versionSummary(version: Version, activeVersionId: unknown): Record<string, unknown> {
  const item = recordOf(version.item);
  return defined({
    versionId: version.versionId ?? item.versionId,
    version: version.version ?? item.version,
    status: item.status,
    active: activeVersionId === undefined ? undefined : (version.versionId ?? item.versionId) === activeVersionId,
    createdAt: version.createdAt,
    createdBy: version.createdBy,
  });
}

async function compareRuleVersions(input: CompareRuleInput, context: ToolContext): Promise<RuleComparison> {
  const chosen = await chooseVersions(input, context);
  const [from, to] = await Promise.all([readVersion(context, input.ruleId, chosen.fromVersionId), readVersion(context, input.ruleId, chosen.toVersionId)]);
  const toItem = recordOf(to.item);
  const all = pathDiff(recordOf(from.item), toItem);
  const changes = all.filter((change) => !METADATA.has(change.path));
  const metadata = all.filter((change) => METADATA.has(change.path));
  return {
    ruleId: input.ruleId,
    name: toItem.name,
    from: versionSummary(from, chosen.activeVersionId),
    to: versionSummary(to, chosen.activeVersionId),
    changes,
    metadata,
    ...(changes.length === 0 ? { note: all.length ? 'The two versions do the same: only their metadata differs.' : 'The two versions are identical.' } : {}),
  };
}

/** The API's own bookkeeping and enumerations; every other string of a rule was written by someone. */
const API_VALUES = new Set([...METADATA, 'source', 'triggerType']);

function renderValue(value: unknown, path: string, quote: Quote): string {
  if (typeof value !== 'string' && typeof value !== 'object') return String(value);
  if (value === null || (typeof value === 'string' && API_VALUES.has(path))) return String(value);
  return quote(typeof value === 'string' ? value : JSON.stringify(value));
}

/** `path: before -> after`, `path added: value` or `path removed: value`. */
function describeChange(change: PathChange, quote: Quote): string {
  if (change.change === 'added') return `${change.path} added: ${renderValue(change.after, change.path, quote)}`;
  if (change.change === 'removed') return `${change.path} removed: ${renderValue(change.before, change.path, quote)}`;
  return `${change.path}: ${renderValue(change.before, change.path, quote)} -> ${renderValue(change.after, change.path, quote)}`;
}

function renderChange(change: PathChange, quote: Quote): string[] {
  return change.hunks ? [`- ${change.path}:`, ...renderHunks(change.hunks, quote, '    ')] : [`- ${describeChange(change, quote)}`];
}

/** Text rendering of compare_rule_versions: the two versions, one line (or one diff) per changed path of the rule, then the metadata on one line. */
function renderRuleComparison(data: unknown, quote: Quote): string {
  const result = data as RuleComparison;
  const side = (version: Record<string, unknown>) =>
    `${String(version.versionId)} (version ${String(version.version)}, ${String(version.status ?? 'status unknown')}${version.active ? ', active' : ''}, created ${String(version.createdAt)} by ${String(version.createdBy)})`;
  const lines = [`Rule ${result.ruleId} ${quote(result.name)}: ${side(result.from)} -> ${side(result.to)}`];
  if (result.note) lines.push(result.note);
  else lines.push(`What the rule does: ${result.changes.length} field(s) changed:`, ...result.changes.flatMap((change) => renderChange(change, quote)));
  if (result.metadata.length) lines.push(`Metadata: ${result.metadata.map((change) => describeChange(change, quote)).join('; ')}.`);
  return lines.join('\n');
}

const compareRuleVersionsTool = defineTool({
  name: 'compare_rule_versions',
  title: 'Compare two versions of an intent rule',
  words: 'diff differences changed previous last current versus against intent flow revision history',
  scope: 'read',
  description: 'Diffs two versions of an intent rule by field path, flowConfig included; default the active version against the one before. Ids: list_rule_versions.',
  input: z.object({
    ruleId: idInput('Intent rule id.'),
    // The description states both defaults; per-field text would repeat it in every tools/list.
    fromVersionId: z.string().trim().min(1, 'must not be empty').optional(),
    toVersionId: z.string().trim().min(1, 'must not be empty').optional(),
  }),
  handler: compareRuleVersions,
  text: renderRuleComparison,
  ui: 'review',
  errors: { 400: ERRORS_400, 404: "the rule or a version does not exist in the workspace (list_rule_versions {ruleId} lists this rule's versions)" },
});

export const rules = defineGroup({
  name: 'rules',
  description: 'Versions of intent rules.',
  tools: [listRuleVersions, getRuleVersion, compareRuleVersionsTool],
  aliases: { rulebook: 'rule', playbook: 'rule' },
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
});
