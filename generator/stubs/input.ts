import type { ResourceModel, VersionModel } from '../model/model.ts';
import type { StubEvent } from './stub-events.ts';

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
  /**
   * Add the stubs an existing handler file lacks. Off by default: an added stub is a handler that
   * runs, and a file without one may be so on purpose; without it, what is missing is reported.
   */
  readonly addStubs?: boolean;
  /** The hub of the conversion stubs (`--hub`): the storage version unless given. */
  readonly hub?: string;
}

export interface StubsReport {
  /** Handler files written from the template because they did not exist. */
  readonly created: readonly string[];
  /** Existing handler files to which missing stubs or imports were added (only with `addStubs`). */
  readonly extended: readonly StubsExtension[];
  /** Existing handler files left as they were. */
  readonly unchanged: readonly string[];
  /** Existing handler files without a handler for some event, left as they were (without `addStubs`). */
  readonly missing: readonly StubsMissing[];
  /** Handler files for kinds no longer in the CRDs: reported, never deleted. */
  readonly orphans: readonly string[];
  /** Things worth a look that kopf-gen will not fix in the user's code. */
  readonly notes: readonly string[];
  /**
   * The kinds (by CRD name) whose handler file registers handlers on the kind, none of which
   * stores anything in the object's status (reconcilers, indexes, admission handlers).
   */
  readonly storingNothing: readonly string[];
}

export interface StubsExtension {
  readonly file: string;
  /** What was added, as short phrases: the import lines, and `on.update(Widget, updateWidget)` per stub. */
  readonly added: readonly string[];
}

export interface StubsMissing {
  readonly file: string;
  readonly kind: string;
  /** The events the file neither handles nor declines. */
  readonly events: readonly StubEvent[];
}
