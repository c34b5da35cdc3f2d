/**
 * Node's process metrics keep two things running between scrapes: an event-loop delay monitor and
 * an observer of the garbage collections. An operator's stop stops them, so that operators started
 * and stopped one after another in a process (a test suite's) leave nothing behind.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import perfHooks from 'node:perf_hooks';
import { operator } from '../../../runtime/operator/operator.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, captureLogs } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { kubeconfigOf, sendJson, startServer, status } from '../kube/fake-server.ts';

type Hooks = { -readonly [K in 'monitorEventLoopDelay' | 'PerformanceObserver']: typeof perfHooks[K] };

/** The monitors enabled and the observers observing, as Node's perf_hooks hand them out from now on. */
function trackPerfHooks(t: TestContext): { monitors: Set<object>; observers: Set<object> } {
  const monitors = new Set<object>();
  const observers = new Set<object>();
  const hooks: Hooks = perfHooks;
  const { monitorEventLoopDelay, PerformanceObserver } = hooks;
  t.after(() => { Object.assign(hooks, { monitorEventLoopDelay, PerformanceObserver }); });
  hooks.monitorEventLoopDelay = (options) => {
    const histogram = monitorEventLoopDelay(options);
    const { enable, disable } = histogram;
    histogram.enable = () => { monitors.add(histogram); return enable.call(histogram); };
    histogram.disable = () => { monitors.delete(histogram); return disable.call(histogram); };
    return histogram;
  };
  hooks.PerformanceObserver = class extends PerformanceObserver {
    override observe(options: Parameters<perfHooks.PerformanceObserver['observe']>[0]): void {
      observers.add(this);
      super.observe(options);
    }

    override disconnect(): void {
      observers.delete(this);
      super.disconnect();
    }
  };
  return { monitors, observers };
}

test('operators with metrics, started and stopped in turn, leave no monitor or observer running', async (t) => {
  const { monitors, observers } = trackPerfHooks(t);
  const server = await startServer((_req, res) => sendJson(res, 503, status(503, 'ServiceUnavailable', 'busy')));
  t.after(() => server.close());
  for (let round = 0; round < 3; round++) {
    const registry = new OperatorRegistry();
    let started!: () => void;
    const starting = new Promise<void>((resolve) => { started = resolve; });
    registry.on.startup(async function wait({ signal }) {
      started();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    });
    registry.on.create(KopfExample, async function create_fn() {});
    const op = operator({
      registry, kubeconfig: kubeconfigOf(server), namespaces: ['default'], metrics: 'http://127.0.0.1:0/metrics',
      settings: defaultSettings({ posting: { enabled: false } }),
      logs: new LogConfig({ verbosity: 'quiet', sinks: [captureLogs().sink] }),
    });
    await starting;
    assert.ok(monitors.size > 0 && observers.size > 0, 'the metrics are collected while the operator runs');
    await op.stop();
    await op.done;
    assert.deepEqual([monitors.size, observers.size], [0, 0], `after stop number ${round + 1}`);
  }
});
