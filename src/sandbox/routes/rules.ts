/**
 * Intent rule versions: the version history (entries without `flowConfig`) and one version with
 * its full tree. Business rules, empty path parameters and a rule id that is not a UUID get 400
 * (spec); a version id is not a UUID (the spec shows the form v<N>).
 */
import { badRequest, notFound } from '../errors.js';
import type { RouteRequest } from '../router.js';
import { requireInWorkspace } from '../state.js';
import type { IntentRule, RuleVersion } from '../types.js';
import { uuidParam } from '../validate.js';

function loadRule(req: RouteRequest): IntentRule {
  const empty = ['id', 'versionId'].filter((name) => name in req.params && (req.params[name] ?? '').trim() === '');
  if (empty.length) throw badRequest(empty.map((name) => `${name} should not be empty`));
  const rule = requireInWorkspace(req.state, req.workspace, 'rules', uuidParam(req.params, 'id'), 'Rule not found');
  if (rule.kind === 'business') throw badRequest(['Versions are available for intent rules only; this is a business rule']);
  return rule;
}

function versionView(version: RuleVersion, withFlow: boolean): Record<string, unknown> {
  const item: Record<string, unknown> = { ...structuredClone(version.item) };
  if (!withFlow) delete item.flowConfig;
  return { versionId: version.versionId, version: version.version, createdAt: version.createdAt, createdBy: version.createdBy, item };
}

export function listRuleVersions(req: RouteRequest) {
  const rule = loadRule(req);
  const versions = [...rule.versions].sort((a, b) => b.version - a.version).map((v) => versionView(v, false));
  return { body: { ruleId: rule.id, activeVersionId: rule.activeVersionId, versions } };
}

export function getRuleVersion(req: RouteRequest) {
  const rule = loadRule(req);
  const version = rule.versions.find((v) => v.versionId === req.params.versionId);
  if (!version) throw notFound('Rule version not found for this rule');
  return { body: [versionView(version, true)] };
}
