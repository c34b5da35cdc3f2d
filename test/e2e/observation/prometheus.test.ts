/**
 * A real Prometheus scrapes an operator run as in a cluster (`kopf run --metrics`) on the local
 * control plane: the exposition passes `promtool check metrics`, the scrape target is up, and every
 * query of the Grafana dashboard returns data after a short run of handlers that succeed, retry and
 * fail, a refused request, a 429 with its wait, a daemon, restarted watches and a leader election.
 * Without prometheus/promtool, and no way to install them, the test is skipped, saying why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createObject, deleteObject } from '../../../runtime/kube/index.ts';
import { runOperator } from '../../../runtime/testing/runner.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { useCluster } from '../use-cluster.ts';
import { useFaultProxy } from '../faults/use-proxy.ts';
import { answer } from '../faults/proxy.ts';
import { freePort } from '../ports.ts';
import { dashboardQueries, exposedNames, metricsOf, runnable } from './dashboard.ts';
import {
  checkMetrics, findPrometheus, query, startPrometheus, targetHealth, until, type PrometheusTools,
} from './prometheus.ts';

const DASHBOARD = resolve(import.meta.dirname, '../../../docs/grafana-dashboard.json');
const RING_PANELS = new Set(['Ring members', 'Objects per member', 'Ring moves']);

const cluster = useCluster();
const proxy = useFaultProxy(cluster);
const tools = await findPrometheus();

test('Prometheus scrapes the operator, and every query of the dashboard returns data', {
  skip: typeof tools === 'string' ? `no Prometheus: ${tools}` : false,
}, async (t) => {
  const { prometheus: binary, promtool } = tools as PrometheusTools;
  const faults = await proxy();
  // The handler's GET of a missing object is answered 429 once, then 404 by the API server.
  const throttled = faults.inject({ method: 'GET', path: /\/kopfexamples\/absent$/ }, answer(429, { retryAfter: 1 }), {
    times: 1,
  });
  const port = await freePort();
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const operator = runOperator({
    files: [join(import.meta.dirname, 'fixtures', 'observed.ts')],
    args: [
      // As the scaffold's image runs it: liveness and metrics on one port.
      '--standalone', '-n', 'default', '--verbose',
      `--liveness=http://127.0.0.1:${port}/healthz`, `--metrics=${metricsUrl}`,
      '--leader-election=kopf-observed', '--leader-election-namespace=default',
    ],
    kubeconfigPath: faults.kubeconfigPath,
  });
  t.after(() => operator.stop());
  t.after(
    () => deleteObject(cluster.client, KopfExample, { namespace: 'default', name: 'observed' }).catch(() => undefined),
  );
  await operator.waitFor('Starting the watch-stream for kopfexamples', { timeout: 60_000 });
  await createObject(cluster.client, KopfExample, { metadata: { name: 'observed', namespace: 'default' }, spec: {} });
  await operator.waitFor('[default/observed] Creation is processed: 2 succeeded; 1 failed.', { timeout: 60_000 });
  assert.equal(throttled.hits.count, 1);

  await t.test('promtool check metrics passes on the exposition', async () => {
    const exposition = await (await fetch(metricsUrl)).text();
    const checked = checkMetrics(promtool, exposition);
    assert.equal(checked.status, 0, `promtool check metrics:\n${checked.output}`);
  });

  await t.test('every metric that the dashboard names is in the running operator\'s exposition', async () => {
    const exposed = exposedNames(await (await fetch(metricsUrl)).text());
    for (const { panel, expr } of dashboardQueries(readFileSync(DASHBOARD, 'utf8'))) {
      for (const name of metricsOf(expr)) assert.ok(exposed.has(name), `${panel}: ${name} is not exposed`);
    }
  });

  await t.test('the target is up, and every query of the dashboard returns data', async (s) => {
    const prometheus = await startPrometheus(binary, [`127.0.0.1:${port}`]);
    s.after(() => prometheus.stop());
    await until(async () => (await targetHealth(prometheus)).includes('up'), {
      what: 'the operator\'s target to be up', output: prometheus.output,
    });
    // Each query is polled until it returns data: the rates need two scrapes in their window. The
    // ring's panels need a ring, which excludes the leader election shown here: test/e2e/sharding/
    // ring-metrics.test.ts checks their metrics, and the exposition test above their names.
    const queries = dashboardQueries(readFileSync(DASHBOARD, 'utf8')).filter(({ panel }) => !RING_PANELS.has(panel));
    const empty = new Set(queries.map(({ panel, expr }) => `${panel}: ${expr}`));
    await until(async () => {
      for (const { panel, expr } of queries) {
        const key = `${panel}: ${expr}`;
        if (empty.has(key) && (await query(prometheus, runnable(expr))).length) empty.delete(key);
      }
      return empty.size === 0;
    }, { what: 'every query of the dashboard to return data', timeoutMs: 90_000, output: () => [...empty].join('\n') });
  });
});
