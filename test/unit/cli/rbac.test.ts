/**
 * `kopf rbac` on operator files, without a cluster: the YAML it prints, its usage errors, and the
 * handlers of a file that imports another copy of kopf than the command's own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'runtime', 'cli', 'main.ts');
const KOPF = pathToFileURL(join(ROOT, 'runtime', 'index.ts')).href;
const KOPF_EXAMPLE = pathToFileURL(join(ROOT, 'examples', 'kopfexample.ts')).href;

function kopfRbac(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, 'rbac', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function operatorFile(dir: string, source: string): string {
  const path = join(dir, 'handlers.ts');
  writeFileSync(path, source);
  return path;
}

test('prints the service account, roles and bindings as YAML, with what each permission is for', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = operatorFile(dir, `
    import { builtins, on, requires } from '${KOPF}';
    import { KopfExample } from '${KOPF_EXAMPLE}';
    requires(builtins.Secrets, ['get']);
    on.create(KopfExample, function create_fn() {});
    on.event('deployments.apps', function spy() {});
  `);
  const run = kopfRbac(
    dir,
    '-n',
    'shop',
    '--service-account',
    'op',
    '--service-account-namespace',
    'ops',
    '--rule',
    'get,list:pods/log',
    file,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^# The RBAC of the operator, printed by `kopf rbac` from its handlers:$/m);
  assert.match(run.stdout, /^# {3}secrets: get — declared with requires\(\)$/m);
  const objects = parseAllDocuments(run.stdout).map(
    (doc) => doc.toJS() as { kind: string; metadata: { name: string; namespace?: string }; rules?: unknown }
  );
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`), [
    'ServiceAccount/ops/op', 'ClusterRole//op', 'ClusterRoleBinding//op', 'Role/shop/op', 'RoleBinding/shop/op',
  ]);
  // CRDs, for the resource named by a string, are cluster-scoped; the rest is the namespace's.
  assert.deepEqual(
    objects[1]!.rules,
    [{ apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch'] }],
  );
  assert.deepEqual(objects[3]!.rules, [
    // The same verbs in one group make one rule: the served resource's and the peering objects'.
    { apiGroups: ['kopf.dev'], resources: ['kopfexamples', 'kopfpeerings'], verbs: ['get', 'list', 'watch', 'patch'] },
    { apiGroups: ['kopf.dev'], resources: ['kopfexamples/status'], verbs: ['patch'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'watch'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    { apiGroups: [''], resources: ['pods/log'], verbs: ['get', 'list'] },
  ]);
});

test('a resource named without its group, a malformed rule, and conflicting scopes are usage errors', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = operatorFile(
    dir,
    `import { on } from '${KOPF}';\non.create('kopfexamples', function create_fn() {});\n`,
  );
  const bare = kopfRbac(dir, file);
  assert.equal(bare.status, 2);
  assert.match(
    bare.stderr,
    /^kopf rbac: The resource 'kopfexamples' is named without its API group.*'kopfexamples\.kopf\.dev'/,
  );
  const rule = kopfRbac(
    dir,
    '--rule',
    'pods',
    operatorFile(dir, `import { on } from '${KOPF}';\non.create('pods', function create_fn() {});\n`),
  );
  assert.equal(rule.status, 2);
  assert.match(rule.stderr, /--rule 'pods': write it as VERBS:RESOURCE/);
  const both = kopfRbac(dir, '-A', '-n', 'x');
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--namespace and --all-namespaces exclude each other/);
});

test('a file that cannot be loaded is named by kopf rbac, not by another command', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const broken = kopfRbac(dir, operatorFile(dir, 'const broken: number = ;\n'));
  assert.equal(broken.status, 1);
  assert.match(broken.stderr, /^kopf rbac: cannot load \S+handlers\.ts:\n/);
});

test('handlers registered through another copy of kopf (a global command, a linked package) are found', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A copy of the package's sources outside node_modules (so Node strips their types), with the
  // packages it depends on reachable as they would be from its own installation.
  cpSync(
    join(ROOT, 'runtime'),
    join(dir, 'kopf'),
    { recursive: true, filter: (path) => !/\/(node_modules|dist)(\/|$)/.test(path) },
  );
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const copy = pathToFileURL(join(dir, 'kopf', 'index.ts')).href;
  const file = operatorFile(dir, `import { on } from '${copy}';\non.create('pods', function create_fn() {});\n`);
  const run = kopfRbac(dir, '-A', file);
  assert.equal(run.status, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /no resource handlers are registered/);
  assert.match(run.stdout, /^# {3}pods: get, list, watch, patch — served$/m);
});

test('only the YAML goes to stdout: what the operator\'s files print goes to stderr; -o writes the YAML to a file', (
  t
) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = operatorFile(dir, `
    import { on } from '${KOPF}';
    console.log('loading handlers');
    console.info({ noisy: true });
    process.stdout.write('raw write\\n');
    setImmediate(() => console.log('printed later'));
    on.create('pods', function create_fn() {});
  `);
  const run = kopfRbac(dir, '-A', file);
  assert.equal(run.status, 0, run.stderr);
  assert.doesNotMatch(run.stdout, /loading handlers|noisy|raw write|printed later/);
  const documents = parseAllDocuments(run.stdout);
  assert.deepEqual(documents.flatMap((doc) => doc.errors), []);
  assert.deepEqual(
    documents.map((doc) => (doc.toJS() as { kind: string }).kind),
    ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'],
  );
  for (const line of ['loading handlers', 'noisy: true', 'raw write', 'printed later'])
    assert.ok(run.stderr.includes(line), run.stderr);

  const output = join(dir, 'rbac.yaml');
  const written = kopfRbac(dir, '-A', '-o', output, file);
  assert.equal(written.status, 0, written.stderr);
  assert.equal(written.stdout, '');
  assert.equal(readFileSync(output, 'utf8'), run.stdout);
  const nowhere = kopfRbac(dir, '-A', '--output', join(dir, 'missing', 'rbac.yaml'), file);
  assert.equal(nowhere.status, 1);
  assert.match(nowhere.stderr, /^kopf rbac: cannot write .*missing\/rbac\.yaml: ENOENT/m);
});

test('admission handlers (examples/17-admission): the managed webhook configurations are granted, narrowed by name, ' +
  'or left out', () => {
  const example = join(ROOT, 'examples', '17-admission', 'example.ts');
  type Rule = { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] };
  const admissionRules = (...args: string[]) => {
    const run = kopfRbac(ROOT, '-A', ...args, example);
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /no resource handlers are registered/);
    const [, clusterRole] = parseAllDocuments(run.stdout).map((doc) => doc.toJS() as { kind: string; rules?: Rule[] });
    assert.equal(clusterRole?.kind, 'ClusterRole');
    return {
      header: run.stdout,
      rules: clusterRole.rules!.filter((rule) => rule.apiGroups[0] === 'admissionregistration.k8s.io'),
    };
  };
  const resources = ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'];
  const derived = admissionRules();
  assert.deepEqual(
    derived.rules,
    [{ apiGroups: ['admissionregistration.k8s.io'], resources, verbs: ['create', 'patch'] }],
  );
  assert.match(
    derived.header,
    /^# {3}validatingwebhookconfigurations \(admissionregistration\.k8s\.io\): create, patch — admission handlers/m,
  );
  const named = admissionRules('--webhook-managed', 'auto.kopf.dev');
  assert.deepEqual(named.rules, [
    { apiGroups: ['admissionregistration.k8s.io'], resources, verbs: ['create'] },
    { apiGroups: ['admissionregistration.k8s.io'], resources, resourceNames: ['auto.kopf.dev'], verbs: ['patch'] },
  ]);
  assert.deepEqual(admissionRules('--no-webhook-managed').rules, []);
  const both = kopfRbac(ROOT, '--webhook-managed', 'x', '--no-webhook-managed', example);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--webhook-managed and --no-webhook-managed exclude each other/);
});

test('the YAML goes through the writer main() is given; the files are loaded apart; stdout left alone', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-rbac-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = operatorFile(dir, `
    import { on } from '${KOPF}';
    process.stdout.write('raw write\\n');
    on.create('pods', function create_fn() {});
  `);
  const { main } = await import('../../../runtime/cli/rbac.ts');
  const { getDefaultRegistry } = await import('../../../runtime/registry/registry.ts');
  const write = process.stdout.write;
  const written: string[] = [];
  assert.equal(await main(['-A', file], (text) => written.push(text)), 0);
  assert.equal(process.stdout.write, write, 'stdout is not replaced');
  assert.equal(getDefaultRegistry().resourceHandlers.length, 0, 'the files are not loaded into this process');
  const kinds = parseAllDocuments(written.join('')).map((doc) => (doc.toJS() as { kind: string }).kind);
  assert.deepEqual(kinds, ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']);
});
