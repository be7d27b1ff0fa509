/**
 * Tags: create a tag in a workspace-owned custom tag group. 201 with the Tag; an unknown group
 * (or a built-in one, which the lookup of custom groups does not find) surfaces as 500 (spec).
 */
import { internalError } from '../errors.js';
import { newId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { findInWorkspace, iso } from '../state.js';
import type { Tag } from '../types.js';
import { Violations, objectBody, optionalString, requireString } from '../validate.js';

export function createTag(req: RouteRequest) {
  const body = objectBody(req.body);
  const v = new Violations();
  const tagName = requireString(v, 'tagName', body.tagName);
  const tagDescription = optionalString(v, 'tagDescription', body.tagDescription);
  v.throwIfAny();
  const group = findInWorkspace(req.state, req.workspace, 'tagGroups', req.params.id ?? '');
  if (!group?.custom) throw internalError();
  const tag: Tag = { id: newId(), createdAt: iso(req.now), tagGroupId: group.id, tagName: tagName!, ...(tagDescription !== undefined ? { tagDescription } : {}) };
  req.workspace.tags.set(tag.id, tag);
  return { status: 201, body: { ...tag } };
}
