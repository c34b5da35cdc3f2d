/**
 * The soak run's operator: a creation and an update handler whose results the benchmark watches
 * for (the update's result names the value it saw, so that the latency of each update can be
 * timed from outside), a deletion handler (so the finalizer is needed), a timer on the objects
 * labelled `soak/timer` and a daemon on those labelled `soak/daemon`. Once a minute it prints its
 * event loop's delay (99th percentile, milliseconds) over that minute.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { on, PRESENT } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
setInterval(() => {
  console.log(`soak: event-loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(2)} ms`);
  delay.reset();
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
