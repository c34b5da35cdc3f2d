#!/usr/bin/env node
/**
 * `kopf-gen [paths…] [--out DIR] [--stubs DIR] [--add-stubs] [--check] [--force] [--status-conditions]`: typed
 * resources from CRDs.
 * Exit codes: 0 done (or up to date), 1 invalid input, stale output (`--check`), or refused; 2 a
 * command line that cannot be parsed.
 */
import { Command, CommanderError } from 'commander';
import { formatDiagnostic, InputError } from '../diagnostics/diagnostic.ts';
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import { UnsafePathError } from '../paths.ts';
import { generate, NoCrdsError, OverwriteError } from '../pipeline/generate.ts';
import type { GenerateResult } from '../pipeline/generate.ts';
import type { StubsMissing, StubsReport } from '../stubs/index.ts';
import { GENERATOR_VERSION } from '../version.ts';
import { progressReporter } from './progress.ts';

interface CliOptions {
  out: string;
  stubs: string | false;
  addStubs?: boolean;
  hub?: string;
  check?: boolean;
  force?: boolean;
  allowEmpty?: boolean;
  statusConditions?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

const SHOWN_WARNINGS = 10;

export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command()
    .name('kopf-gen')
    .description('Generate typed resources for kopf operators from CustomResourceDefinitions.')
    .version(GENERATOR_VERSION, '-V, --version')
    // A wrong command line is a usage error (exit 2, as kopf's), said as kopf says it: the command's
    // name first, then where to read more. --help and --version still exit at once, with 0.
    .exitOverride((error) => { if (error.exitCode !== 0) throw error; })
    .configureOutput({ outputError: (text, write) => write(`kopf-gen: ${text.replace(/^error: /, '')}`) })
    .showHelpAfterError('See `kopf-gen --help`.')
    .argument('[paths...]', 'CRD files or folders (searched for .yaml, .yml, .json)', ['crds/'])
    .option('--out <dir>', 'where generated modules go (owned by kopf-gen)', 'src/generated')
    .option('--stubs <dir>', 'where handler files go (yours: created when missing, never changed)', 'src/handlers')
    .option('--no-stubs', 'do not create handler files')
    .option('--add-stubs', 'also add the stubs an existing handler file lacks (they run when the operator starts)')
    .option('--hub <version>', 'the version the conversion stubs convert to and from (default: the storage version)')
    .option('--check', 'write nothing; exit 1 if the generated files are missing or stale, or stubs would be written')
    .option('--force', 'replace generated files even if they were edited by hand')
    .option('--allow-empty', 'accept input without any CRD (writes an empty module) instead of failing')
    .option('--status-conditions', 'the operator keeps status.conditions and status.observedGeneration '
      + '(settings.status.conditions): warn where a CRD\'s status schema prunes them')
    .option('-q, --quiet', 'print errors only')
    .option('--verbose', 'print every warning and note')
    .addHelpText('after', [
      '',
      'For every CRD group and served version it writes <out>/<group>/<version>.ts with, per kind:',
      '  Kind          the object type as the API server returns it (an interface), and the',
      '                descriptor for handlers and the API client (a const of the same name)',
      '  KindInput     the object type to write: fields the API server defaults are optional',
      '  KindFields    dotted field paths and their value types, for field handlers and filters',
      '  KindPatch     the JSON merge-patch type',
      '  KindSpec, …   named nested types (shared by shape), enum types with their value lists',
      '<out>/index.ts re-exports every kind at its storage version. Handler stubs for new kinds go to',
      '<stubs>/<group>/<plural>.ts; a handler file already there is never changed (what it lacks is',
      'reported; --add-stubs adds it). For a CRD with several versions, a conversion stub goes to',
      '<stubs>/../conversions/<group>/<plural>.ts by the same rule: on.convert per version other than',
      'the hub, copying the fields both versions have alike; each other field fails tsc until written.',
      '',
      'YAML is read the way Kubernetes reads it (YAML 1.1 scalars: on/yes/no are booleans, 0755 is octal).',
      'Only apiextensions.k8s.io/v1 CRDs are accepted; other documents are skipped with a note.',
      'The output folder belongs to kopf-gen and is replaced whole on every run; its',
      'kopf-gen.manifest.json lets kopf-gen refuse to replace files edited by hand.',
      '',
      'Exit codes: 0 done or up to date; 1 invalid input (messages name the file, document and JSON path),',
      '            no CRD in the input without --allow-empty,',
      '            stale output or stubs to write with --check, or generated files edited by hand without --force;',
      '            2 an unknown option or a missing value.',
      '',
      'Examples:',
      '  kopf-gen                              # crds/ -> src/generated, stubs in src/handlers',
      '  kopf-gen deploy/crd.yaml --out lib/generated --no-stubs',
      '  kopf-gen --check                      # in CI: fail when someone forgot to regenerate',
    ].join('\n'))
    .action(async (paths: string[], options: CliOptions) => {
      exitCode = await run(paths, options);
    });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return 2;
  }
  return exitCode;
}

async function run(paths: string[], options: CliOptions): Promise<number> {
  const err = process.stderr;
  let result: GenerateResult;
  try {
    result = await generate({
      inputs: paths,
      outDir: options.out,
      ...(options.stubs !== false ? { stubsDir: options.stubs } : {}),
      addStubs: options.addStubs ?? false,
      ...(options.hub === undefined ? {} : { hub: options.hub }),
      check: options.check ?? false,
      force: options.force ?? false,
      allowEmpty: options.allowEmpty ?? false,
      statusConditions: options.statusConditions ?? false,
      ...(options.quiet ? {} : { onProgress: progressReporter(err) }),
    });
  } catch (e) {
    if (e instanceof InputError) {
      for (const d of e.diagnostics) err.write(`${formatDiagnostic(d)}\n`);
      err.write(`kopf-gen: ${e.diagnostics.length} error${e.diagnostics.length === 1 ? '' : 's'}; nothing written\n`);
      return 1;
    }
    if (e instanceof NoCrdsError) {
      err.write(`kopf-gen: warning: ${e.message} (--allow-empty accepts that)\n`);
      return 1;
    }
    if (e instanceof OverwriteError || e instanceof UnsafePathError) {
      err.write(`kopf-gen: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  if (!options.quiet) printDiagnostics(result.diagnostics, options.verbose ?? false);
  const out = displayDir(result.outDir);
  const kinds = result.model.resources.length;
  if (options.check) return reportCheck(result, out, options.quiet ?? false);
  if (!options.quiet) {
    process.stdout.write(result.status === 'written'
      ? `kopf-gen: wrote ${out} (${result.files.length} files for ${kinds} CRDs)\n`
      : `kopf-gen: ${out} is up to date (${kinds} CRDs)\n`);
    if (result.stubs) printStubs(result.stubs);
  }
  return 0;
}

/** `--check`: 1, naming each file, when a run with the same options would write anything. */
function reportCheck(result: GenerateResult, out: string, quiet: boolean): number {
  if (result.stale.length) {
    const stale = result.stale.map((f) => `  ${f}\n`).join('');
    process.stderr.write(`kopf-gen: ${out} is stale (run kopf-gen to regenerate):\n${stale}`);
  }
  const stubs = [
    ...(result.stubs?.created ?? []).map((file) => `  ${displayDir(file)} (missing)\n`),
    ...(result.stubs?.extended ?? []).map((entry) => `  ${displayDir(entry.file)} (lacks stubs; --add-stubs)\n`),
  ];
  if (stubs.length) process.stderr.write(`kopf-gen: stubs to write (run kopf-gen to write them):\n${stubs.join('')}`);
  if (result.status === 'stale') return 1;
  if (!quiet) process.stdout.write(`kopf-gen: ${out} is up to date (${result.model.resources.length} CRDs)\n`);
  return 0;
}

function printDiagnostics(diagnostics: readonly Diagnostic[], verbose: boolean): void {
  const warnings = diagnostics.filter((d) => d.severity === 'warning');
  const notes = diagnostics.filter((d) => d.severity === 'note');
  const shown = verbose ? warnings : warnings.slice(0, SHOWN_WARNINGS);
  for (const d of shown) process.stderr.write(`${formatDiagnostic(d)}\n`);
  const hidden = warnings.length - shown.length;
  if (hidden > 0) process.stderr.write(`kopf-gen: ${hidden} more warnings (--verbose shows them)\n`);
  if (verbose) for (const d of notes) process.stderr.write(`${formatDiagnostic(d)}\n`);
  else if (notes.length) {
    const counted = `${notes.length} note${notes.length === 1 ? '' : 's'}`;
    process.stderr.write(`kopf-gen: ${counted} (documents skipped; --verbose shows them)\n`);
  }
}

function printStubs(report: StubsReport): void {
  const out = process.stdout;
  const counts = [
    `${report.created.length} created`,
    `${report.extended.length} extended`,
    `${report.unchanged.length} unchanged`,
  ];
  out.write(`kopf-gen: handler files: ${counts.join(', ')}\n`);
  // New files run nothing until the operator imports them; each is named so that none goes unnoticed.
  for (const file of report.created) {
    out.write(`kopf-gen: created ${displayDir(file)} (it runs nothing until the operator imports it)\n`);
  }
  // Added code runs when the operator starts: each addition is named.
  for (const entry of report.extended) {
    for (const what of entry.added) out.write(`kopf-gen: added to ${displayDir(entry.file)}: ${what}\n`);
  }
  for (const entry of report.missing) out.write(`kopf-gen: ${missingText(entry)}\n`);
  for (const note of report.notes) out.write(`kopf-gen: ${note}\n`);
  for (const orphan of report.orphans) {
    out.write(`kopf-gen: handler file for a kind no longer in the CRDs: ${displayDir(orphan)}\n`);
  }
}

/** `src/handlers/x/widgets.ts has no update or delete handler for Widget; not added (…)`. */
function missingText(entry: StubsMissing): string {
  const events = entry.events.length > 1
    ? `${entry.events.slice(0, -1).join(', ')} or ${entry.events[entry.events.length - 1]!}`
    : entry.events[0]!;
  const pronoun = entry.events.length > 1 ? 'them' : 'it';
  const skipComment = `// kopf-gen: skip ${entry.events.join(', ')}`;
  return `${displayDir(entry.file)} has no ${events} handler for ${entry.kind}; not added, the file is yours `
    + `(--add-stubs adds ${pronoun}; a comment \`${skipComment}\` in the file stops this note)`;
}

function displayDir(dir: string): string {
  const cwd = process.cwd();
  return dir.startsWith(`${cwd}/`) ? dir.slice(cwd.length + 1) : dir;
}

/**
 * Runs the command line of this process. The `kopf-gen` bin (bin/kopf-gen.js) calls it once it has
 * checked that this Node is new enough; a run of this file itself starts here too.
 */
export function start(): void {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (e: unknown) => {
      process.stderr.write(`kopf-gen: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}

if (import.meta.main) start();
