/**
 * The CRDs and sample objects that `kopf control-plane`, `kopf demo` and `kopf dev` read: folders
 * stand for the CRD files in them, and a path that cannot be read is named in the error. Nothing
 * here starts a control plane: `kopf control-plane`, `kopf demo` and `kopf dev` read them (and the last two load the
 * operator's files) before they start one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { crdFiles, readObjects } from '../../../runtime/cli/dev-manifests.ts';
import { readCrds } from '../../../runtime/testing/controlplane/crd-installation.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'runtime', 'cli', 'main.ts');

function folder(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-manifests-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a folder of CRDs stands for its .yaml, .yml and .json files, in name order; a file stands for itself', (t) => {
  const dir = folder(t);
  const crds = join(dir, 'crds');
  mkdirSync(join(crds, 'nested'), { recursive: true });
  for (const name of ['b.yml', 'a.yaml', 'c.json', 'README.md', 'nested/d.yaml']) writeFileSync(join(crds, name), '');
  writeFileSync(join(dir, 'other.yaml'), '');
  assert.deepEqual(crdFiles([crds, join(dir, 'other.yaml')]), [
    join(crds, 'a.yaml'), join(crds, 'b.yml'), join(crds, 'c.json'), join(dir, 'other.yaml'),
  ]);
});

test('a path that cannot be read is named in the error: a missing one, a folder where a file is read', (t) => {
  const dir = folder(t);
  const missing = join(dir, 'missing');
  assert.throws(() => crdFiles([missing]), { message: `cannot read ${missing}: there is no such file or folder` });
  assert.throws(() => readObjects(dir), { message: `cannot read ${dir}: it is a folder, not a file` });
  assert.throws(() => readCrds([dir]), (error: Error) => error.message.startsWith(`cannot read ${dir}: EISDIR`));
});

test('kopf control-plane --crd refuses a missing path or a file that is not a CRD at once, naming it', (t) => {
  const dir = folder(t);
  copyFileSync(join(ROOT, 'examples', 'crd.yaml'), join(dir, 'crd.yaml'));
  writeFileSync(join(dir, 'sample.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n');
  const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'control-plane', ...args], { encoding: 'utf8' });
  const missing = run('--crd', join(dir, 'missing'));
  assert.equal(missing.status, 2, missing.stderr);
  const why = 'there is no such file or folder';
  assert.equal(missing.stderr, `kopf control-plane: --crd: cannot read ${join(dir, 'missing')}: ${why}\n`);
  const mixed = run('--crd', dir);
  assert.equal(mixed.status, 2, mixed.stderr);
  const what = 'expected a CustomResourceDefinition, got ConfigMap';
  assert.equal(mixed.stderr, `kopf control-plane: --crd: ${join(dir, 'sample.yaml')}: ${what}\n`);
});

test('kopf dev refuses a missing --crd, a file that is not a CRD, or a sample that is not an object before it starts ' +
  'a control plane', (t) => {
  const dir = folder(t);
  writeFileSync(join(dir, 'handlers.ts'), '');
  writeFileSync(join(dir, 'not-yaml.yaml'), 'not: [valid\n');
  writeFileSync(join(dir, 'empty.yaml'), '# nothing\n');
  const run = (...args: string[]) => spawnSync(
    process.execPath, [CLI, 'dev', '--local', ...args, 'handlers.ts'], { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  const missing = run('--crd', 'missing');
  assert.equal(missing.status, 2, missing.stderr);
  assert.equal(missing.stderr, 'kopf dev: --crd: cannot read missing: there is no such file or folder\n');
  assert.doesNotMatch(missing.stdout, /Starting etcd/, 'nothing is started for a command line that cannot work');
  const broken = run('--crd', 'not-yaml.yaml');
  assert.equal(broken.status, 2, broken.stderr);
  assert.match(broken.stderr, /^kopf dev: --crd: \S*not-yaml\.yaml: /);
  const sample = run('--crd', join(ROOT, 'examples', 'crd.yaml'), '--object', 'empty.yaml');
  assert.equal(sample.status, 2, sample.stderr);
  assert.equal(sample.stderr, 'kopf dev: --object: empty.yaml holds no objects, or one without apiVersion, kind and ' +
    'metadata.name\n');
});

test('kopf dev loads the operator\'s files before it starts a control plane: one that cannot be loaded is said at ' +
  'once, as kopf run says it', (t) => {
  const dir = folder(t);
  writeFileSync(join(dir, 'handlers.ts'), 'const ok = 1;\nconst broken: number = ;\n');
  const run = spawnSync(
    process.execPath, [CLI, 'dev', '--local', 'handlers.ts'], { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /^kopf dev: cannot load handlers\.ts:\n\S+handlers\.ts:2\n/);
  assert.doesNotMatch(run.stdout, /Starting etcd/, 'nothing is started for an operator that cannot be loaded');
});

test('kopf demo reads its CRDs and its object, and loads the operator\'s files, before it starts a control ' +
  'plane', (t) => {
  const dir = folder(t);
  writeFileSync(join(dir, 'handlers.ts'), 'const ok = 1;\nconst broken: number = ;\n');
  writeFileSync(join(dir, 'empty.yaml'), '# nothing\n');
  const crd = join(ROOT, 'examples', 'crd.yaml');
  const object = join(ROOT, 'examples', 'obj.yaml');
  const run = (...args: string[]) => spawnSync(
    process.execPath, [CLI, 'demo', ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  const missing = run('--crd', 'missing', '--object', object, 'handlers.ts');
  assert.equal(missing.status, 2, missing.stderr);
  assert.equal(missing.stderr, 'kopf demo: --crd: cannot read missing: there is no such file or folder\n');
  const sample = run('--crd', crd, '--object', 'empty.yaml', 'handlers.ts');
  assert.equal(sample.status, 2, sample.stderr);
  assert.match(sample.stderr, /^kopf demo: --object: empty\.yaml holds no objects/);
  const unloadable = run('--crd', crd, '--object', object, 'handlers.ts');
  assert.equal(unloadable.status, 1, unloadable.stderr);
  assert.match(unloadable.stderr, /^kopf demo: cannot load handlers\.ts:\n\S+handlers\.ts:2\n/);
  for (const { stdout } of [missing, sample, unloadable]) {
    assert.doesNotMatch(stdout, /Starting the local control plane/, 'nothing is started for what cannot work');
  }
});
