/**
 * The heap `kopf run` gives an operator. A burst of watch events is much garbage made fast, with
 * some of it (the events waiting in the queues) alive for a while; left to its defaults, V8
 * answers with a young generation of up to 64 MiB per semi-space and an old generation let grow
 * to several times its live size between full collections, and a process's resident memory never
 * shrinks back from its peak. An operator gains nothing from that headroom. The two size settings
 * below take much off the peak RSS with the CPU per object within the run-to-run spread. Both
 * semi-spaces are resident at the peak, so each MiB of the cap is two of RSS; a smaller cap costs
 * instructions, spent copying the objects that outlive the more frequent young collections, and
 * the cap below is where that cost was still small. The figures, and the commands that measure
 * them, are in bench/README.md ("Figures behind the runtime's choices").
 *
 * V8 also collects garbage and compiles hot code on helper threads, in parallel with the main
 * thread. That shortens pauses on a machine with idle cores; an operator is rarely on one (two
 * cores here, a CPU limit in a cluster), and the threads' coordination is CPU spent for nothing.
 * With the collection on the main thread only (`--single-threaded-gc`), the burst benchmark
 * measured less CPU at the same throughput, and with the compilers there too (`--single-threaded`,
 * which implies the former) less again.
 *
 * V8's top compiler, TurboFan, is code of Node's binary like any other: its pages become resident
 * the first time it compiles anything, and stay. At its default threshold, starting an operator
 * alone reaches it (the module loader normalises the path of each of the runtime's files through
 * the same few functions, whose loops count by the paths' lengths), so even an operator that then
 * idles with a few objects holds those pages, a large part of its memory above a bare Node's
 * (bench/small). With a threshold well above what a start spends, code that is hot under load
 * still reaches it early in a burst: the burst benchmark's CPU per object stayed within its spread.
 *
 * The young generation's size, the helper threads and the compiler's threshold are set when the
 * process starts (set later, the threshold would miss the functions the start itself has made hot),
 * so the process re-executes itself with them (the same pid, arguments, environment and standard
 * streams). The old generation's growth is a V8 flag read at every full collection, so it is set
 * in place (V8 ignores flags it does not know, so a future Node without it only loses the tuning).
 * Each is left alone when the operator's user has chosen it (a Node option or NODE_OPTIONS). The
 * re-executed process also starts with Node's compile cache (`compile-cache.ts`).
 */
import { setFlagsFromString } from 'node:v8';
import { withCompileCache } from './compile-cache.ts';

const SEMI_SPACE = '--max-semi-space-size';
const SEMI_SPACE_MIB = 8;
const SINGLE_THREADED = '--single-threaded';
/** A user's choice about either keeps ours out: V8 would have to settle contradictory flags. */
const THREADING = [SINGLE_THREADED, '--single-threaded-gc'];
const TURBOFAN_AFTER = '--invocation-count-for-turbofan';
const TURBOFAN_AFTER_CALLS = 100_000;
const GROWING = '--heap-growing-percent';
const GROWING_PERCENT = 30;

/** The Node options of this process: its command line's and NODE_OPTIONS'. */
function nodeOptions(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
}

/** Whether the flag is given, as `--flag`, `--flag=…`, or its negation `--no-flag`. */
function given(flag: string): boolean {
  const negated = `--no-${flag.slice(2)}`;
  return nodeOptions().some((option) => option === flag || option === negated || option.startsWith(`${flag}=`));
}

/** Applies the operator's heap settings; re-executes the process first if it must. */
export function tuneHeap(): void {
  const atStart = [
    ...(given(SEMI_SPACE) ? [] : [`${SEMI_SPACE}=${SEMI_SPACE_MIB}`]),
    ...(THREADING.some(given) ? [] : [SINGLE_THREADED]),
    ...(given(TURBOFAN_AFTER) ? [] : [`${TURBOFAN_AFTER}=${TURBOFAN_AFTER_CALLS}`]),
  ];
  if (atStart.length && typeof process.execve === 'function') {
    process.execve(
      process.execPath,
      [process.execPath, ...atStart, ...process.execArgv, ...process.argv.slice(1)],
      withCompileCache(process.env),
    );
  }
  if (!given(GROWING)) setFlagsFromString(`${GROWING}=${GROWING_PERCENT}`);
}
