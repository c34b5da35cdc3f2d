/** create-kopf-operator's names and checks, and where the new project's kopf comes from. */
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULTS, packageNameOf, pluralOf, resourceNames, validate } from '../../../create/index.ts';
import { dependencySource } from '../../../create/project/dependencies.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

test('plurals as kubebuilder derives them', () => {
  assert.deepEqual(['widget', 'policy', 'gateway', 'class', 'box', 'match', 'mesh'].map(pluralOf),
    ['widgets', 'policies', 'gateways', 'classes', 'boxes', 'matches', 'meshes']);
});

test('the names a kind gives the CRD', () => {
  const options = { ...DEFAULTS, name: 'x', kind: 'DataPolicy', group: 'data.example.org', version: 'v1beta1' };
  const names = resourceNames({ ...options, scope: 'Cluster' });
  assert.deepEqual(names, {
    kind: 'DataPolicy', singular: 'datapolicy', plural: 'datapolicies', group: 'data.example.org', version: 'v1beta1',
    scope: 'Cluster', apiVersion: 'data.example.org/v1beta1', crdName: 'datapolicies.data.example.org',
    namespaced: false,
  });
});

test('each wrong value is named by the option that sets it', () => {
  assert.deepEqual(validate({ ...DEFAULTS, name: 'my-op' }), []);
  const scope = 'Global' as 'Cluster';
  const wrong = { dir: 'x', name: 'My Op', kind: 'widget', group: 'example', version: '1', scope };
  const problems = validate(wrong);
  assert.deepEqual(problems.map((p) => p.split(':')[0]), ['--kind', '--group', '--api-version', '--scope', '--name']);
});

test('a misspelt option is named, without advice on positional arguments', () => {
  const entry = join(ROOT, 'create/bin/create-kopf-operator.js');
  const run = spawnSync(process.execPath, [entry, 'my-op', '--kindd', 'Foo'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 2);
  assert.equal(run.stderr, "create-kopf-operator: Unknown option '--kindd'.\nSee create-kopf-operator --help.\n");
});

test('a package name from the folder', () => {
  assert.equal(packageNameOf('/tmp/My Operator'), 'my-operator');
  assert.equal(packageNameOf('op_1'), 'op_1');
  assert.equal(packageNameOf('...'), 'my-operator');
});

test('kopf from the registry, a checkout, or a folder of tarballs (the newest of each)', (t) => {
  const registry = dependencySource(undefined, '1.2.3');
  assert.deepEqual(
    [registry.kopf, registry.kopfGen],
    ['1.2.3', '1.2.3'],
    'exactly the versions released with the scaffold',
  );
  const checkout = dependencySource(ROOT, '0.1.0');
  assert.equal(checkout.kopf, `file:${join(ROOT, 'runtime')}`);
  assert.equal(checkout.kopfGen, `file:${join(ROOT, 'generator')}`);
  const dir = mkdtempSync(join(tmpdir(), 'kopf-create-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ['kopf-0.1.0.tgz', 'kopf-0.10.0.tgz', 'kopf-gen-0.2.0.tgz', 'create-kopf-operator-0.1.0.tgz']) {
    writeFileSync(join(dir, file), '');
  }
  const tarballs = dependencySource(dir, '0.1.0');
  assert.equal(tarballs.kopf, 'file:vendor/kopf-0.10.0.tgz');
  assert.equal(tarballs.kopfGen, 'file:vendor/kopf-gen-0.2.0.tgz');
  assert.deepEqual([...tarballs.vendored.keys()], ['kopf-0.10.0.tgz', 'kopf-gen-0.2.0.tgz']);
  const neither = /neither a checkout of kopf .* nor a folder with kopf-<version>\.tgz/;
  assert.throws(() => dependencySource(join(dir, 'nothing'), '0.1.0'), neither);
});
