/**
 * The soak run's operator: a creation and an update handler whose results the benchmark watches
 * for (the update's result names the value it saw, so that the latency of each update can be
 * timed from outside), a deletion handler (so the finalizer is needed), a timer on the objects
 * labelled `soak/timer` and a daemon on those labelled `soak/daemon`. Once a minute it prints its
 * event loop's delay (99th percentile, milliseconds) over that minute, and the V8 heap's used and
 * total sizes and the memory held outside it for JavaScript objects (MiB), so that a drift of the
 * resident memory can be told apart: live objects, the heap's reserve, or memory outside the heap;
 * and the longest stall of its event loop and the longest single pause of its garbage collector,
 * so that what a collection costs (the runtime's, to give memory back, is several in a row) is seen.
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { on, PRESENT } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const MiB = 1024 ** 2;
let longestPause = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) longestPause = Math.max(longestPause, entry.duration);
}).observe({ entryTypes: ['gc'] });
setInterval(() => {
  console.log(`soak: event-loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(2)} ms, max ${
    (delay.max / 1e6).toFixed(2)} ms`);
  delay.reset();
  const heap = getHeapStatistics();
  console.log(`soak: heap used ${(heap.used_heap_size / MiB).toFixed(1)} MiB, total ${
    (heap.total_heap_size / MiB).toFixed(1)} MiB, external ${(heap.external_memory / MiB).toFixed(1)} MiB`);
  console.log(`soak: gc longest pause ${longestPause.toFixed(1)} ms`);
  longestPause = 0;
}, 60_000).unref();

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
});

on.create(KopfExample, function create_fn({ spec }) {
  return { seen: spec.field };
});

on.update(KopfExample, function update_fn({ spec }) {
  return { seen: spec.field };
});

on.delete(KopfExample, function delete_fn() {});

on.timer(KopfExample, function tick() {}, { interval: 30, labels: { 'soak/timer': PRESENT } });

on.daemon(KopfExample, async function accompany({ stopped }) {
  while (!stopped.stopped) await stopped.wait(30);
}, { labels: { 'soak/daemon': PRESENT } });
