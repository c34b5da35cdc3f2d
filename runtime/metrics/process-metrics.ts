/**
 * Node's process metrics: prom-client's defaults, less the three gauges named as counters.
 *
 * Two of the defaults keep something running between scrapes, an event-loop delay monitor (a timer
 * of its own) and an observer of the garbage collections, and prom-client gives no way to stop
 * them. They are caught here as prom-client makes them, so that an operator's stop stops them:
 * otherwise every operator started and stopped in one process (a test suite's) would leave both
 * running, each woken by every tick of its timer and every collection.
 */
import perfHooks from 'node:perf_hooks';
import { collectDefaultMetrics, type Registry } from 'prom-client';

/** Node's default metrics that are gauges named as counters. */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total',
];

type Hooks = { -readonly [K in 'monitorEventLoopDelay' | 'PerformanceObserver']: typeof perfHooks[K] };

/** Registers Node's process metrics in `registry`; returns what stops their monitor and observer. */
export function collectProcessMetrics(registry: Registry): () => void {
  const stops = whileCaught(() => collectDefaultMetrics({ register: registry }));
  // Gauges whose names end in `_total`, which the exposition format keeps for counters: promtool
  // (and so a scrape's linting) refuses them.
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  return () => { for (const stop of stops.splice(0)) stop(); };
}

/**
 * Runs `collect` (synchronous) with Node's event-loop monitors and performance observers caught
 * as they are made; returns a stop for each.
 */
function whileCaught(collect: () => void): (() => void)[] {
  const hooks: Hooks = perfHooks;
  const { monitorEventLoopDelay, PerformanceObserver } = hooks;
  const stops: (() => void)[] = [];
  hooks.monitorEventLoopDelay = (options) => {
    const monitor = monitorEventLoopDelay(options);
    stops.push(() => monitor.disable());
    return monitor;
  };
  hooks.PerformanceObserver = class extends PerformanceObserver {
    constructor(callback: perfHooks.PerformanceObserverCallback) {
      super(callback);
      stops.push(() => this.disconnect());
    }
  };
  try {
    collect();
  } finally {
    Object.assign(hooks, { monitorEventLoopDelay, PerformanceObserver });
  }
  return stops;
}
