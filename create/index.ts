/**
 * `create-kopf-operator` as a library: the same scaffold as the command, for tools and tests.
 */
export { DEFAULTS, packageNameOf, pluralOf, resourceNames, validate } from './project/options.ts';
export type { ProjectOptions, ResourceNames, Scope } from './project/options.ts';
export { ScaffoldError, scaffold } from './project/scaffold.ts';
export type { ScaffoldOptions, ScaffoldResult } from './project/scaffold.ts';
