/**
 * Generator benchmark: the whole CRD corpus through kopf-gen, through
 * `@kubernetes-models/crd-generate`, and through openapi-typescript alone (the baseline), side by
 * side in one run; then each output type-checked with TypeScript 5.9 and 7.x. Prints a table of
 * medians and of ratios to the baselines measured in the same run; writes nothing else.
 *
 *   node bench/generator/run.ts [--runs N] [--corpus DIR] [--tools kopf-gen,crd-generate,openapi-typescript] [--keep]
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findInputFiles } from '../../generator/input/files.ts';
import { batches as batchesWithoutDuplicates, CORPUS } from '../../test/generator/support/corpus.ts';
import { timed } from './measure.ts';
import { describeErrors, prepareTypeCheck, typeCheck } from './typecheck.ts';
import { CRD_GENERATE, ensureInstalled, TYPESCRIPT_7 } from './tools.ts';
import { benchOptions } from '../lib/options.ts';
import { markdownTable, median } from '../lib/tables.ts';

const root = resolve(import.meta.dirname, '../..');
const RUNTIME_ROW = 'kopf types alone';
const node = process.execPath;

interface Generator {
  readonly name: string;
  /** The command that turns one batch of CRD files into TypeScript under `out`. */
  command(out: string, files: readonly string[]): string[];
  /** What `<out>/node_modules` points to, so the output's package imports resolve. */
  readonly nodeModules?: string;
  /** Why it cannot run here, if it cannot. */
  readonly unavailable?: string;
}

function generators(): Generator[] {
  const kopfGen = join(root, 'generator/cli/main.ts');
  const crdGenerate = ensureInstalled(CRD_GENERATE);
  return [
    {
      name: 'openapi-typescript',
      command: (out, files) => [node, join(import.meta.dirname, 'openapi-typescript-alone.ts'), out, ...files],
    },
    {
      name: 'kopf-gen',
      // Types only, as the other tools generate: handler stubs are user files, not part of the comparison.
      command: (out, files) => [node, kopfGen, ...files, '--out', out, '--no-stubs', '--quiet'],
      nodeModules: join(root, 'node_modules'),
      unavailable: existsSync(kopfGen) ? undefined : 'generator/cli/main.ts does not exist yet',
    },
    {
      name: 'crd-generate',
      command: (out, files) => [
        node,
        join(crdGenerate, CRD_GENERATE.marker),
        ...files.flatMap((f) => ['--input', f]),
        '--output',
        out,
      ],
      nodeModules: join(crdGenerate, 'node_modules'),
    },
  ];
}

const args = benchOptions({ runs: 3, corpus: join(CORPUS, 'crds'), tools: undefined, keep: false });
const runs = args.runs;
const wanted = args.tools?.split(',');
const all = generators().filter((g) => !wanted || wanted.includes(g.name));
for (const g of all.filter((g) => g.unavailable)) console.log(`${g.name}: skipped, ${g.unavailable}`);
const tools = all.filter((g) => !g.unavailable);
const compilers = [
  { name: 'tsc 5.9', tsc: join(root, 'node_modules/typescript/bin/tsc') },
  { name: 'tsc 7', tsc: join(ensureInstalled(TYPESCRIPT_7), TYPESCRIPT_7.marker) },
];

// The corpus holds some CRDs more than once (argo's minimal and full variants, an older tekton,
// kopium's fixtures); one run rightly refuses or overwrites duplicates, so each tool runs once per batch.
const corpus = findInputFiles([resolve(args.corpus)], process.cwd()).files;
const batches = batchesWithoutDuplicates(corpus);
const corpusBytes = corpus.reduce((sum, f) => sum + statSync(f).size, 0);
console.log(`corpus: ${corpus.length} files, ${batches.reduce((n, b) => n + b.crds.length, 0)} CRDs, ` +
  `${mb(corpusBytes)} MB, ` +
  `in ${batches.length} batches without duplicate CRDs (${batches.map((b) => b.files.length).join(' + ')} files)`);
console.log(`node ${process.versions.node}, ${runs} run(s) each, medians\n`);

const work = mkdtempSync(join(tmpdir(), 'kopf-bench-generator-'));
const outOf = (g: Generator) => join(work, g.name);
const generateSeconds = new Map<string, number[]>(tools.map((g) => [g.name, []]));
try {
  // Interleaved, so that drift in the machine's speed spreads over all tools alike.
  for (let run = 0; run < runs; run++) {
    for (const g of tools) {
      rmSync(outOf(g), { recursive: true, force: true });
      mkdirSync(outOf(g), { recursive: true });
      let seconds = 0;
      for (const [i, batch] of batches.entries()) {
        const r = timed(g.command(join(outOf(g), `batch-${i + 1}`), batch.files));
        if (r.status !== 0)
          throw new Error(`${g.name} failed on batch ${i + 1} (exit ${r.status}):\n${r.stderr.slice(-4000)}`);
        seconds += r.seconds;
      }
      generateSeconds.get(g.name)?.push(seconds);
      process.stderr.write(`run ${run + 1}: ${g.name} ${seconds.toFixed(2)} s\n`);
    }
  }

  // kopf-gen's modules import types from `kopf`, whose TypeScript sources tsc checks along with
  // them; this row measures that part alone, so it can be told apart from the generated code.
  const targets: { name: string; dir: string; nodeModules?: string }[] = tools.map(
    (g) => ({ name: g.name, dir: outOf(g), nodeModules: g.nodeModules })
  );
  if (tools.some((g) => g.name === 'kopf-gen'))
    targets.push(
      { name: RUNTIME_ROW, dir: runtimeOnly(join(work, RUNTIME_ROW)), nodeModules: join(root, 'node_modules') }
    );
  const checks = new Map<string, { seconds: number; errors: string }>();
  for (const target of targets) {
    prepareTypeCheck(target.dir, target.nodeModules);
    for (const c of compilers) {
      const times: number[] = [];
      let errors = '';
      for (let run = 0; run < runs; run++) {
        const r = typeCheck(node, c.tsc, target.dir);
        times.push(r.seconds);
        errors = describeErrors(r);
        process.stderr.write(
          `run ${run + 1}: ${c.name} on ${target.name} ${r.seconds.toFixed(2)} s, ${r.errors} errors\n`
        );
      }
      checks.set(`${target.name}/${c.name}`, { seconds: median(times), errors });
    }
  }

  printTable(tools, generateSeconds, checks);
} finally {
  if (args.keep) console.log(`\noutputs kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

function runtimeOnly(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.ts'),
    "import type { ResourceDescriptor } from 'kopf';\nexport type Any = ResourceDescriptor;\n",
  );
  return dir;
}

function printTable(
  gens: readonly Generator[],
  generate: Map<string, number[]>,
  checks: Map<string, { seconds: number; errors: string }>,
): void {
  const base = gens[0].name;
  const baseGenerate = median(generate.get(base) ?? []);
  const baseCheck = checks.get(`${base}/${compilers[0].name}`)?.seconds ?? NaN;
  const header = ['tool', 'generate s', `× ${base}`, 'output MB', 'files',
    ...compilers.flatMap((c) => [`${c.name} s`, `× ${compilers[0].name} on ${base}`, `${c.name} errors`])];
  const checkCells = (name: string) => compilers.flatMap((c) => {
    const check = checks.get(`${name}/${c.name}`);
    return check ? [check.seconds.toFixed(2), ratio(check.seconds, baseCheck), check.errors] : ['-', '-', '-'];
  });
  const rows = gens.map((g) => {
    const seconds = median(generate.get(g.name) ?? []);
    const size = sizeOf(outOf(g));
    return [
      g.name,
      seconds.toFixed(2),
      ratio(seconds, baseGenerate),
      mb(size.bytes),
      String(size.files),
      ...checkCells(g.name)
    ];
  });
  if (checks.has(`${RUNTIME_ROW}/${compilers[0].name}`))
    rows.push([RUNTIME_ROW, '-', '-', '-', '-', ...checkCells(RUNTIME_ROW)]);
  console.log(markdownTable(header, rows));
}

function ratio(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}×`;
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

/** Bytes and files of generated code (.ts and .js), not counting the linked packages. */
function sizeOf(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules') continue;
    const path = join(dir, entry);
    const stat = statSync(path);
    if (stat.isDirectory()) {
      const inner = sizeOf(path);
      bytes += inner.bytes;
      files += inner.files;
    } else if (/\.(ts|js)$/.test(entry) && entry !== 'tsconfig.json') {
      bytes += stat.size;
      files++;
    }
  }
  return { bytes, files };
}
