/**
 * Least-privilege RBAC for an operator, derived from its registered handlers (`kopf rbac`).
 */
export {
  RbacError, operatorNeeds, rbacResource, rulesOf, type Need, type NeedsOptions, type PolicyRule,
} from './rules.ts';
export { rbacManifests, scopeNotes, type ManifestOptions } from './manifests.ts';
