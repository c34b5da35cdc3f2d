/**
 * The whole run: read the inputs, build the model, render, plan the handler and conversion stubs,
 * then check or write it all in one step (whole or nothing, never over hand edits without `force`).
 */
import { relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import { InputError } from '../diagnostics/diagnostic.ts';
import { renderFiles } from '../emit/render.ts';
import { displayPath, findInputFiles, readSource, unreadableInput } from '../input/files.ts';
import type { SourceFile } from '../input/files.ts';
import { buildModel } from '../model/build.ts';
import type { Model } from '../model/model.ts';
import { compareOutput } from '../output/compare.ts';
import { MANIFEST_FILE, manifestText, sha256 } from '../output/manifest.ts';
import { checkOutput, writeOutput } from '../output/write.ts';
import type { OutputPlan } from '../output/write.ts';
import { isInside } from '../paths.ts';
import { GENERATOR_VERSION } from '../version.ts';
import { planStubs } from '../stubs/index.ts';
import type { StubsReport } from '../stubs/index.ts';

export interface GenerateOptions {
  /** CRD files or folders. */
  readonly inputs: readonly string[];
  readonly outDir: string;
  /** Where handler files live; no stubs step without it. */
  readonly stubsDir?: string;
  /**
   * Add the handler stubs an existing handler file lacks. Without it, such files are left as they
   * are and what they lack is reported (`stubs.missing`): an added stub is a handler that runs.
   */
  readonly addStubs?: boolean;
  /** The version the conversion stubs convert to and from (`--hub`): the storage version unless given. */
  readonly hub?: string;
  /** Compare with what is on disk instead of writing; `stale` lists the differences. */
  readonly check?: boolean;
  /** Replace generated files even where they were edited by hand. */
  readonly force?: boolean;
  /** Write (or check) an empty module when the inputs hold no CRD, instead of throwing NoCrdsError. */
  readonly allowEmpty?: boolean;
  /** The operator keeps the status that tools read (`settings.status.conditions`): warn where it is pruned. */
  readonly statusConditions?: boolean;
  /** Base for relative paths; `process.cwd()` by default. */
  readonly cwd?: string;
  readonly onProgress?: (event: ProgressEvent) => void;
}

export interface ProgressEvent {
  readonly phase: 'read' | 'model' | 'render';
  readonly done: number;
  readonly total: number;
  /** Bytes of input, for deciding whether progress is worth showing. */
  readonly bytes: number;
  readonly item: string;
}

export interface GenerateResult {
  readonly model: Model;
  /** Absolute output folder. */
  readonly outDir: string;
  /** Output paths relative to `outDir`, with `/`. */
  readonly files: readonly string[];
  /** `written`/`unchanged` when writing; `fresh`/`stale` with `check`. */
  readonly status: 'written' | 'unchanged' | 'fresh' | 'stale';
  /**
   * With `check`: generated files that differ from what would be generated, are missing, or are
   * extra. The status is also `stale` when stubs would be written (`stubs.created`, `stubs.extended`).
   */
  readonly stale: readonly string[];
  /** Warnings and notes (errors are thrown). */
  readonly diagnostics: readonly Diagnostic[];
  /** What the handler-stubs step did (with `check`: would do), when it ran. */
  readonly stubs?: StubsReport;
}

/** Refused: generated files were edited (or are not kopf-gen's) and `force` is not set. */
export class OverwriteError extends Error {
  readonly files: readonly { readonly path: string; readonly reason: string }[];
  constructor(outDir: string, files: readonly { path: string; reason: string }[]) {
    const listed = files.map((f) => `  ${f.path}: ${f.reason}`).join('\n');
    super(`not replacing files in ${outDir} (use --force to replace them):\n${listed}`);
    this.name = 'OverwriteError';
    this.files = files;
  }
}

/**
 * The inputs hold no CRD: an empty module is almost always a mistake (a wrong path, a file of other
 * kinds), and generating it would leave a CI step green while every import of a kind breaks.
 */
export class NoCrdsError extends Error {
  readonly inputs: readonly string[];
  constructor(inputs: readonly string[], skipped: number) {
    const why = skipped ? ` (${skipped} document${skipped === 1 ? '' : 's'} of other kinds skipped)` : '';
    super(`no CustomResourceDefinition in ${inputs.join(', ')}${why}; nothing written`);
    this.name = 'NoCrdsError';
    this.inputs = inputs;
  }
}

export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const cwd = options.cwd ?? process.cwd();
  const outDir = resolve(cwd, options.outDir);
  const sources = readInputs(options.inputs, cwd, outDir, options.onProgress);
  const bytes = sources.reduce((n, s) => n + s.bytes, 0);
  const model = buildModel(sources, (done, total, item) => {
    options.onProgress?.({ phase: 'model', done, total, bytes, item });
  }, { statusConditions: options.statusConditions ?? false });
  if (!model.resources.length && !options.allowEmpty) {
    throw new NoCrdsError(options.inputs, model.diagnostics.filter((d) => d.severity === 'note').length);
  }
  const files = renderFiles(model, (done, total, item) => {
    options.onProgress?.({ phase: 'render', done, total, bytes, item });
  });
  files.set(MANIFEST_FILE, manifestText({
    generator: `kopf-gen ${GENERATOR_VERSION}`,
    inputs: sources.map((s) => ({ path: portable(relative(outDir, s.absolute)), sha256: s.sha256 })),
    outputs: Object.fromEntries([...files].map(([path, text]) => [path, sha256(text)])),
  }));
  const paths = [...files.keys()];
  const comparison = compareOutput(outDir, files);
  // The stubs are planned in both modes: `check` reports what a run would create or extend.
  const stubsPlan = options.stubsDir !== undefined
    ? planStubs(model, {
      stubsDir: resolve(cwd, options.stubsDir), outDir, addStubs: options.addStubs ?? false,
      ...(options.hub === undefined ? {} : { hub: options.hub }),
    })
    : undefined;
  const plan: OutputPlan = {
    ...(comparison.stale.length ? { generated: { outDir, files } } : {}),
    ...(stubsPlan ? { userFiles: stubsPlan } : {}),
  };
  const stubs = stubsPlan?.report;
  const diagnostics = stubs ? withoutHarmlessPruning(model, stubs.storingNothing) : model.diagnostics;
  const base = { model, outDir, files: paths, diagnostics, ...(stubs ? { stubs } : {}) };
  if (options.check) {
    checkOutput(plan);
    const stale = comparison.stale.length || stubsPlan?.writes.length;
    return { ...base, status: stale ? 'stale' : 'fresh', stale: comparison.stale };
  }
  if (comparison.foreign.length && !options.force) throw new OverwriteError(outDir, comparison.foreign);
  writeOutput(plan);
  return { ...base, status: comparison.stale.length ? 'written' : 'unchanged', stale: [] };
}

/**
 * A status schema that prunes loses nothing of a kind whose handlers store nothing there (only
 * reconcilers, say): its warning becomes a note, shown with --verbose.
 */
function withoutHarmlessPruning(model: Model, storingNothing: readonly string[]): readonly Diagnostic[] {
  const harmless = new Set(storingNothing.flatMap((name) => model.pruning.get(name) ?? []));
  return model.diagnostics.map((d) => harmless.has(d)
    ? { ...d, severity: 'note', message: `${d.message} (its handlers store nothing in status, so nothing is lost)` }
    : d);
}

function readInputs(
  inputs: readonly string[],
  cwd: string,
  outDir: string,
  onProgress: GenerateOptions['onProgress'],
): SourceFile[] {
  const { files, errors } = findInputFiles(inputs, cwd);
  if (errors.length) throw new InputError(errors);
  // The output folder's own files (the manifest is JSON) are never inputs.
  const own = files.filter((f) => !isInside(f, outDir));
  // Every file is checked before any is read: a device or a huge file is refused at once.
  const refused = own.flatMap((file): Diagnostic[] => {
    const why = unreadableInput(file);
    return why ? [{ severity: 'error', file: displayPath(file, cwd), message: why }] : [];
  });
  if (refused.length) throw new InputError(refused);
  const sources: SourceFile[] = [];
  let bytes = 0;
  own.forEach((file, i) => {
    const source = readSource(file, cwd);
    bytes += source.bytes;
    sources.push(source);
    onProgress?.({ phase: 'read', done: i + 1, total: own.length, bytes, item: source.display });
  });
  return sources;
}

function portable(path: string): string {
  return path.split(sep).join('/');
}
