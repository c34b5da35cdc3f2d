/**
 * What the stub generator needs to know about each kind, independent of how the generator core
 * models CRDs, so that stubs follow the core's naming contract without depending on its internals.
 */
export interface StubKind {
  readonly group: string;
  /** The exported name of the generated type and descriptor, usually the CRD's `kind`. */
  readonly kind: string;
  readonly plural: string;
  readonly scope: 'Namespaced' | 'Cluster';
  /** The version whose generated module a new handler file imports: the one the runtime watches. */
  readonly version: string;
  /** Every version with a generated module; an existing import of any of them is kept as it is. */
  readonly versions: readonly string[];
}

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
