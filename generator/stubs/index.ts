/**
 * Handler stubs: one user-owned file per kind, `<stubsDir>/<group>/<plural>.ts`, written from the
 * templates when absent. A file that is there is the user's: what it lacks is reported, and
 * added only when asked (`addStubs`), since an added stub is a handler that runs. This folder only
 * plans; the run's one write step (output/write.ts) checks the paths and writes, or `--check` reports.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { STUB_EVENTS, stubFunctionName, stubPartialName } from './stub-events.ts';
import { extendHandlerFile, reviewHandlerFile } from './extend.ts';
import { formatWholeFile } from './format.ts';
import type { StubResource, StubsExtension, StubsInput, StubsMissing, StubsOptions, StubsReport } from './input.ts';
import { generatedIndexPath, generatedModulePath, handlerFilePath, relativeSpecifier } from './layout.ts';
import { findOrphanedHandlerFiles } from './orphans.ts';
import { conversionsDirOf, planConversionStubs, type ConversionResource } from './conversions.ts';
import { loadStubTemplates, TEMPLATE_GLOBALS } from './template.ts';
import type { StubTemplates } from './template.ts';

export type { StubResource, StubsExtension, StubsInput, StubsMissing, StubsOptions, StubsReport } from './input.ts';
export { STUB_EVENTS, stubFunctionName } from './stub-events.ts';
export type { StubEvent } from './stub-events.ts';

/** What the stubs step will write, every file rendered; nothing is written here. */
export interface StubsPlan {
  /** The folders every write must stay in: the handler files' and the conversion stubs' beside it. */
  readonly folders: readonly string[];
  readonly writes: readonly StubsWrite[];
  readonly report: StubsReport;
}

export interface StubsWrite {
  readonly file: string;
  readonly text: string;
  /** A new file: created only if nothing (not even a dangling link) is there when it is written. */
  readonly create: boolean;
}

/**
 * Reads the handler files and decides what to write, writing nothing: a name that would leave the
 * stubs folder refuses the whole step (UnsafePathError); the write step checks the rest.
 */
export function planStubs(model: StubsInput, options: StubsOptions): StubsPlan {
  const outDir = resolve(options.outDir);
  const stubsDir = resolve(options.stubsDir);
  const setting: Setting = {
    outDir,
    templates: loadStubTemplates(options.templatesDir),
    addStubs: Boolean(options.addStubs),
    generated: new Set([generatedIndexPath(outDir), ...model.resources.flatMap((r) => modulesOf(outDir, r))]),
  };
  const resources = sortResources(model.resources);
  const files = resources.map((r) => handlerFilePath(stubsDir, r));
  const plan: Planned = {
    writes: [], created: [], extended: [], unchanged: [], missing: [], notes: [], storingNothing: [],
  };
  resources.forEach((resource, i) => planFile(resource, files[i]!, setting, plan));
  addConversionStubs(model, options, plan);
  const { writes, created, extended, unchanged, missing, notes, storingNothing } = plan;
  const orphans = findOrphanedHandlerFiles(stubsDir, new Set(files));
  const report = { created, extended, unchanged, missing, orphans, notes, storingNothing };
  return { folders: [stubsDir, conversionsDirOf(stubsDir)], writes, report };
}

/**
 * The handlers whose results never go into the object's status: a kind served by these alone
 * loses nothing to a status schema that prunes (changing, event, timer and daemon handlers'
 * results do go there).
 */
const STORING_NOTHING: ReadonlySet<string> = new Set(['reconcile', 'index', 'validate', 'mutate']);
/** The conversion stubs of the CRDs with several versions (conversions.ts), in the same plan and report. */
function addConversionStubs(model: StubsInput, options: StubsOptions, plan: Planned): void {
  const resources = model.resources.filter(hasSchemas);
  const conversions = planConversionStubs(resources, { stubsDir: options.stubsDir, outDir: options.outDir,
    ...(options.hub === undefined ? {} : { hub: options.hub }) });
  plan.writes.push(...conversions.writes);
  plan.created.push(...conversions.created);
  plan.unchanged.push(...conversions.unchanged);
  plan.notes.push(...conversions.notes);
}

/** The model's resources have their versions' schemas; a test's hand-made input may not. */
function hasSchemas(resource: StubResource): resource is StubResource & ConversionResource {
  return 'storageVersion' in resource && resource.versions.every((v) => 'schema' in v);
}

/** What every handler file is planned with. */
interface Setting {
  readonly outDir: string;
  readonly templates: StubTemplates;
  readonly addStubs: boolean;
  /** Every module this run generates, so that an import of one it no longer does is noted. */
  readonly generated: ReadonlySet<string>;
}

/** The plan as it is being made: the writes, and the report but for the orphans. */
interface Planned {
  writes: StubsWrite[];
  created: string[];
  extended: StubsExtension[];
  unchanged: string[];
  missing: StubsMissing[];
  notes: string[];
  storingNothing: string[];
}

function modulesOf(outDir: string, resource: StubResource): string[] {
  return resource.versions.filter((v) => v.served).map((v) => generatedModulePath(outDir, resource.group, v.name));
}

/** A new handler file for a kind that has none; else what the user's file lacks, added if asked. */
function planFile(resource: StubResource, file: string, setting: Setting, plan: Planned): void {
  const { outDir, templates } = setting;
  const preferred = generatedModulePath(outDir, resource.group, resource.preferredVersion);
  if (!existsSync(file)) {
    const text = renderHandlerFile(resource, relativeSpecifier(file, preferred), file, templates);
    plan.writes.push({ file, text, create: true });
    plan.created.push(file);
    return;
  }
  const target = {
    file,
    kind: resource.kind,
    typeName: resource.typeName,
    kindModules: [preferred, ...modulesOf(outDir, resource), generatedIndexPath(outDir)],
    kindSpecifier: relativeSpecifier(file, preferred),
  };
  const text = readFileSync(file, 'utf8');
  const result = setting.addStubs
    ? extendHandlerFile(text, target, templates)
    : { ...reviewHandlerFile(text, target), text, added: [] };
  if (result.added.length) {
    plan.writes.push({ file, text: result.text, create: false });
    plan.extended.push({ file, added: result.added });
  } else {
    plan.unchanged.push(file);
    if (result.missing.length) plan.missing.push({ file, kind: resource.kind, events: result.missing });
  }
  if (result.unreadable) plan.notes.push(`${file} was left as it is: ${result.unreadable}`);
  const { handlers } = result.survey;
  if (!result.added.length && handlers.size && [...handlers].every((h) => STORING_NOTHING.has(h))) {
    plan.storingNothing.push(`${resource.plural}.${resource.group}`);
  }
  for (const imported of result.survey.relativeImports) {
    if (imported.startsWith(outDir + '/') && !setting.generated.has(imported)) {
      plan.notes.push(`${file} imports ${imported}, which kopf-gen no longer generates`);
    }
  }
}

/** The whole text of a new handler file for a kind, formatted. */
function renderHandlerFile(
  resource: StubResource,
  kindSpecifier: string,
  file: string,
  templates: StubTemplates,
): string {
  const name = resource.typeName;
  const kindRef = TEMPLATE_GLOBALS.has(name) ? `${name}Resource` : name;
  const text = templates.handlerFile({
    kind: resource.kind,
    group: resource.group,
    plural: resource.plural,
    scopeText: resource.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced',
    onImport: { alias: '' },
    kindImport: { kind: name, alias: kindRef === name ? '' : kindRef, specifier: kindSpecifier },
    stubs: STUB_EVENTS.map((event) => ({
      partial: stubPartialName(event),
      onRef: 'on',
      kindRef,
      kind: resource.kind,
      fnName: stubFunctionName(event, name),
    })),
  });
  return formatWholeFile(file, text);
}

function sortResources(resources: readonly StubResource[]): StubResource[] {
  const key = (r: StubResource) => `${r.group}/${r.plural}`;
  return [...resources].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
