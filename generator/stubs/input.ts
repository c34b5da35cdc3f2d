/**
 * What the stub generator reads of the generator's model: a structural subset of its
 * `Model`/`ResourceModel` (generator/model/), so the whole model can be passed as it is.
 */
export interface StubsInput {
  readonly resources: readonly StubResource[];
}

export interface StubResource {
  readonly group: string;
  /** The kind as the API writes it in objects, for the file's header. */
  readonly kind: string;
  /** The exported name of the kind's generated type and descriptor. */
  readonly typeName: string;
  readonly plural: string;
  readonly scope: 'Namespaced' | 'Cluster';
  /** The version whose generated module a new handler file imports: the one the runtime watches. */
  readonly preferredVersion: string;
  /** Every version with a generated module; an existing import of any of them is kept as it is. */
  readonly versions: readonly { readonly name: string }[];
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
