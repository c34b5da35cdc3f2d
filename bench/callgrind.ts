/**
 * Counting instructions with callgrind for the benchmarks that measure one kind of work in a
 * process of their own (requests, engine): the process runs under valgrind with instrumentation
 * off, switches it on for its measured phase (`instrument()`, through `callgrind_control`), and the
 * count is read back from valgrind's summary and its profile.
 *
 * V8 compiles hot functions whenever they become hot, also late in a run, and a compilation in the
 * measured phase adds tens of thousands of instructions per measured unit that the next run may
 * not have, and a full garbage collection may or may not fall into it: the count is therefore also
 * given without V8's compilers and collector, the code's own work, which repeats to within a few
 * percent where the total moves by a third.
 */
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';

export interface InstructionCount {
  /** All instructions of the measured phase. */
  total: number;
  /** Of them, V8's compilers' (optimizing and lazy): work done once per function, not per unit. */
  compiling: number;
  /** Of them, the garbage collector's: real work, but whether a full collection falls into the phase is luck. */
  collecting: number;
}

/** The command that runs `node args…` under callgrind, its profile written into `dir` as `name`. */
export function underCallgrind(dir: string, name: string, node: string, args: readonly string[]): [string, string[]] {
  return [
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(dir, name)}`,
      node,
      ...args
    ],
  ];
}

/** Instructions counted in a run by `underCallgrind`, from valgrind's stderr and the profile. */
export function countOf(stderr: string, dir: string, name: string): InstructionCount {
  const collected = /Collected : (\d+)/.exec(stderr)?.[1];
  if (collected === undefined) throw new Error(`valgrind reported no count:\n${stderr.slice(-1000)}`);
  const annotated = execFileSync(
    'callgrind_annotate',
    ['--inclusive=yes', join(dir, name)],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const inclusive = (pattern: RegExp) => Math.max(
    0,
    ...annotated.split('\n').filter((line) => pattern.test(line)).map(
      (line) => Number(line.trim().split(' ')[0]!.replaceAll(',', ''))
    )
  );
  // Lazy compilation enters through two overloads, one calling the other: the larger holds both.
  const compiling = inclusive(/v8::internal::Compiler::CompileOptimized\(/) + inclusive(
    /v8::internal::Compiler::Compile\(/
  );
  // Young collections, and full ones whose marking goes in steps between allocations.
  const collecting = inclusive(/v8::internal::Heap::CollectGarbage\(/) + inclusive(
    /v8::internal::IncrementalMarking::Step\(/
  );
  return { total: Number(collected), compiling, collecting };
}

/** Switches callgrind's instrumentation of this process (a no-op unless `enabled`). */
export function instrument(enabled: boolean, on: boolean): Promise<void> {
  if (!enabled) return Promise.resolve();
  return new Promise((resolve, reject) => {
    execFile(
      'callgrind_control',
      [`--instr=${on ? 'on' : 'off'}`, String(process.pid)],
      (error) => (error ? reject(error) : resolve()),
    );
  });
}
