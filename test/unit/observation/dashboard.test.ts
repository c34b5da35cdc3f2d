/**
 * The Grafana dashboard: the scaffold's copy is the docs' copy, and every query names only metrics
 * that the runtime exposes — read from the exposition an operator serves, not from a list kept by
 * hand — so that a renamed metric cannot leave a panel silently empty.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PrometheusMetrics } from '../../../runtime/metrics/prometheus.ts';
import { dashboardQueries, exposedNames, metricsOf } from '../../e2e/observation/dashboard.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const DOCS = resolve(ROOT, 'docs/grafana-dashboard.json');
const SCAFFOLD = resolve(ROOT, 'templates/project/deploy/monitoring/grafana-dashboard.json');

test('the scaffold\'s dashboard is the docs\' dashboard', () => {
  assert.equal(readFileSync(SCAFFOLD, 'utf8'), readFileSync(DOCS, 'utf8'));
});

test('every query of the dashboard names metrics that an operator exposes, and only those', async () => {
  const exposed = exposedNames((await new PrometheusMetrics().exposition()).text);
  assert.ok(exposed.has('kopf_handler_runs_total') && exposed.has('process_resident_memory_bytes'));
  const queries = dashboardQueries(readFileSync(DOCS, 'utf8'));
  assert.ok(queries.length >= 20, `${queries.length} queries`);
  for (const { panel, expr } of queries) {
    const named = metricsOf(expr);
    assert.ok(named.length, `${panel}: ${expr} names no metric`);
    for (const name of named) assert.ok(exposed.has(name), `${panel}: ${name} is not exposed`);
  }
});

test('the names are read from the queries\' selectors and from the exposition\'s types', () => {
  assert.deepEqual(
    metricsOf('histogram_quantile(0.9, sum by (le) (rate(a_seconds_bucket{job=~"$job"}[5m]))) / b{x="{"}'),
    ['a_seconds_bucket', 'b'],
  );
  const text = '# HELP a_seconds s\n# TYPE a_seconds histogram\n# TYPE c_total counter\nc_total 1\n';
  assert.deepEqual([...exposedNames(text)].sort(), ['a_seconds_bucket', 'a_seconds_count', 'a_seconds_sum', 'c_total']);
});
