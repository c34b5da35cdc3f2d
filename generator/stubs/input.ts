import type { ResourceModel, VersionModel } from '../model/types.ts';

/**
 * What the stub generator reads of the generator's model: the whole `Model` fits, and so does
 * anything with these fields of its resources (tests build only these).
 */
export interface StubsInput {
  readonly resources: readonly StubResource[];
}

export type StubResource =
  Pick<ResourceModel, 'group' | 'kind' | 'typeName' | 'plural' | 'scope' | 'preferredVersion'> & {
  /** Served versions have a generated module; an existing import of any of them is kept as it is. */
  readonly versions: readonly Pick<VersionModel, 'name' | 'served'>[];
};

export interface StubsOptions {
  /** Where the user's handler files live: `<stubsDir>/<group>/<plural>.ts`. */
  readonly stubsDir: string;
  /** Where the generated modules live: `<outDir>/<group>/<version>.ts` and `<outDir>/index.ts`. */
  readonly outDir: string;
  /** Where the handlebars templates are; the repository's `templates/stubs/` unless given. */
  readonly templatesDir?: string;
}

export interface StubsReport {
  /** Handler files written from the template because they did not exist. */
  readonly created: readonly string[];
  /** Existing handler files to which missing stubs or imports were added. */
  readonly extended: readonly StubsExtension[];
  /** Existing handler files that already had everything. */
  readonly unchanged: readonly string[];
  /** Handler files for kinds no longer in the CRDs: reported, never deleted. */
  readonly orphans: readonly string[];
  /** Things worth a look that kopf-gen will not fix in the user's code. */
  readonly notes: readonly string[];
}

export interface StubsExtension {
  readonly file: string;
  /** What was added, as short phrases: the import lines, and `on.update(Widget, updateWidget)` per stub. */
  readonly added: readonly string[];
}
