/**
 * Memory given back when the operator is (nearly) idle. V8 keeps what a burst of work made it
 * take — the young generation grown to its cap, the old generation's free pages — and a process's
 * resident memory does not shrink by itself: an operator that started, handled its few objects and
 * now waits holds the peak of its start for as long as it runs. V8 gives it back only in a
 * collection made to reduce memory, which nothing starts in a quiet process.
 *
 * So `kopf run` looks at the event loop's utilization every few seconds; in a period of little
 * work after enough work since the last time (the start counts as enough), it makes one such
 * collection. Its cost is bounded by the work between two of them: such a collection (several
 * full ones in a row) takes milliseconds for a small heap and more for a large one, and comes at
 * most once per ten seconds of the operator's own work, so that its share stays small. A busy
 * operator is never interrupted by it; the next burst grows the heap again as it needs.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the utilization is read. */
const PERIOD_MS = 2000;
/** A period whose share of work is below this is one of little work. */
const QUIET = 0.05;
/** The event loop's active time between two collections, at least. */
const WORK_BETWEEN_MS = 10_000;

interface CollectionOptions { type: 'major'; execution: 'sync'; flavor: 'last-resort' }
type Collect = (options: CollectionOptions) => void;

export interface IdleMemoryOptions {
  /** How often the utilization is read, in milliseconds. */
  periodMs?: number;
  /** Called after each collection (for tests). */
  collected?: () => void;
}

/** Starts watching the utilization; the timer does not keep the process up. Returns its stop. */
export function returnMemoryWhenIdle(options: IdleMemoryOptions = {}): () => void {
  let last = performance.eventLoopUtilization();
  let work = WORK_BETWEEN_MS;
  let collect: Collect | null | undefined;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const period = performance.eventLoopUtilization(now, last);
    last = now;
    work += period.active;
    if (period.utilization >= QUIET || work < WORK_BETWEEN_MS) return;
    work = 0;
    if (collect === undefined) collect = collector();
    collect?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    options.collected?.();
  }, options.periodMs ?? PERIOD_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * V8's collection function, taken from a context of its own so that the operator's global scope
 * gets no `gc`; the flag is set back at once, for contexts made later. `null` where V8 has none.
 */
function collector(): Collect | null {
  setFlagsFromString('--expose-gc');
  try {
    const collect: unknown = runInNewContext('typeof gc === "function" ? gc : null');
    return typeof collect === 'function' ? collect as Collect : null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
