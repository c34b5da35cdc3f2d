/**
 * `npm test`: everything a change must pass, in one command that sets up what it needs.
 *
 *   1. lint, import layers, type check;
 *   2. the control-plane binaries (found, cached, or built from the Go module proxy, with progress);
 *   3. unit tests on the Node floor (22.x, installed into a cache outside the repository);
 *   4. all tests (unit, generator, end to end, examples) on the development Node;
 *   5. the fault-injection suite (test/faults/: the operator killed, the control plane restarted,
 *      requests refused…, a few minutes), then its summary table.
 *
 * `--unit` runs steps 1 and 3–4 for unit tests only; `--no-faults` skips step 5 (for every edit);
 * `--faults` runs steps 1, 2 and 5 only (`npm run test:faults`). Extra arguments are test files to
 * run instead. The last line is `N passed, N failed` summed over all runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { SUMMARY_ENV, summaryTable } from '../test/faults/summary.ts';
import { homedir, tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const faultsOnly = args.includes('--faults');
const withFaults = !unitOnly && !args.includes('--no-faults');
const files = args.filter((a) => !a.startsWith('--'));
const FLOOR = '22.19.0';

const UNIT = ['test/unit/**/*.test.ts'];
const ALL = ['test/!(faults)/**/*.test.ts', 'examples/**/*.test.ts'];
const FAULTS = ['test/faults/**/*.test.ts'];

function step(title: string, cmd: string, argv: string[], env: NodeJS.ProcessEnv = {}): number {
  console.log(`\n=== ${title}`);
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function floorNode(): string | null {
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kopf', `node-${FLOOR}`);
  const bin = join(dir, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    console.log(`\n=== installing Node ${FLOOR} (the floor) into ${dir}`);
    const r = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, `node@${FLOOR}`],
      { stdio: 'inherit' },
    );
    if (r.status !== 0 || !existsSync(bin)) return null;
  }
  return bin;
}

/** Runs node's test runner; returns pass/fail counts read from a TAP copy of its report. */
function runTests(
  title: string, node: string, patterns: string[], concurrency: number, env: NodeJS.ProcessEnv = {},
): { pass: number; fail: number } {
  const tapDir = mkdtempSync(join(tmpdir(), 'kopf-test-'));
  const tap = join(tapDir, 'report.tap');
  const status = step(title, node, [
    '--test', `--test-concurrency=${concurrency}`,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    ...patterns,
  ], env);
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  rmSync(tapDir, { recursive: true, force: true });
  const pass = Number(/^# pass (\d+)/m.exec(text)?.[1] ?? 0);
  let fail = Number(/^# fail (\d+)/m.exec(text)?.[1] ?? 0) + Number(/^# cancelled (\d+)/m.exec(text)?.[1] ?? 0);
  if (status !== 0 && fail === 0) fail = 1; // the runner itself failed (a file that does not load)
  return { pass, fail };
}

let pass = 0;
let fail = 0;
const checks: [string, string[]][] = [
  ['lint', ['scripts/lint.ts']],
  ['import layers', ['scripts/check-layers.ts']],
];
for (const [title, argv] of checks) {
  if (step(title, process.execPath, argv) === 0) pass++; else fail++;
}
if (
  step(
    'type check (TypeScript 5.9)',
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
  ) === 0
) pass++; else fail++;

if ((!unitOnly && files.length === 0) || faultsOnly) {
  if (
    step('control-plane binaries', process.execPath, ['runtime/cli/main.ts', 'control-plane', '--build-only']) !== 0
  ) {
    console.log(`\n${pass} passed, ${fail + 1} failed`);
    process.exit(1);
  }
}

/** The fault-injection suite's files (or the given ones), with its summary table after them. */
function runFaults(patterns: string[]): { pass: number; fail: number } {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-faults-summary-'));
  const summary = join(dir, 'summary.jsonl');
  const started = Date.now();
  const title = `fault-injection suite on Node ${process.versions.node}`;
  const result = runTests(title, process.execPath, patterns, 2, { [SUMMARY_ENV]: summary });
  if (existsSync(summary)) {
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`\n=== fault-injection summary (${seconds} s)\n${summaryTable(summary)}`);
  }
  rmSync(dir, { recursive: true, force: true });
  return result;
}

if (faultsOnly) {
  const r = runFaults(files.length ? files : FAULTS);
  pass += r.pass; fail += r.fail;
  console.log(`\n${pass} passed, ${fail} failed`);
  process.exit(fail ? 1 : 0);
}

const floor = files.length ? null : floorNode();
if (!files.length) {
  if (floor) {
    const r = runTests(`unit tests on Node ${FLOOR}`, floor, UNIT, 2);
    pass += r.pass; fail += r.fail;
  } else {
    console.log(`could not install Node ${FLOOR} for the floor run`);
    fail++;
  }
}
const isFaults = (file: string): boolean => relative(root, resolve(file)).startsWith(`test${sep}faults${sep}`);
const given = { faults: files.filter(isFaults), others: files.filter((f) => !isFaults(f)) };
if (!files.length || given.others.length) {
  const patterns = files.length ? given.others : unitOnly ? UNIT : ALL;
  const r = runTests(`tests on Node ${process.versions.node}`, process.execPath, patterns, 2);
  pass += r.pass; fail += r.fail;
}
if (given.faults.length || (!files.length && withFaults)) {
  const r = runFaults(given.faults.length ? given.faults : FAULTS);
  pass += r.pass; fail += r.fail;
}

console.log(`\n${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
