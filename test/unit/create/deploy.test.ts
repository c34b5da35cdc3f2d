/**
 * What a new project deploys with, for each scope of its kind, without installing it: its RBAC is
 * what `kopf rbac` derives from its handlers with the scope its scripts and Deployment name, the
 * namespaced kind's operator is granted nothing cluster-wide, and the image installs exactly the
 * lock file on a base image named in one place.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULTS, scaffold, type Scope } from '../../../create/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'runtime', 'cli', 'main.ts');

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
}

/** A project of the default names and this scope, not installed; its files read as text. */
async function project(t: { after: (fn: () => void) => void }, scope: Scope) {
  const dir = join(mkdtempSync(join(tmpdir(), 'kopf-create-')), 'my-op');
  t.after(() => rmSync(resolve(dir, '..'), { recursive: true, force: true }));
  await scaffold({ ...DEFAULTS, dir, name: 'my-op', scope, install: false });
  // `kopf` for the project's files, as an installation would resolve it: this checkout's.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return { dir, read: (file: string) => readFileSync(join(dir, file), 'utf8') };
}

/** `npm run rbac` without npm: the script's `kopf rbac` arguments, its output as the script would write it. */
function runRbacScript(dir: string, script: string): string {
  const match = /^kopf rbac (.*) > deploy\/rbac\.yaml$/.exec(script);
  assert.ok(match, `the rbac script writes deploy/rbac.yaml with kopf rbac: ${script}`);
  const run = spawnSync(process.execPath, [CLI, 'rbac', ...match[1]!.split(' ')], { cwd: dir, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

function manifests(text: string): Manifest[] {
  return parseAllDocuments(text).map((doc) => doc.toJS() as Manifest);
}

test('a namespaced kind: the operator serves one namespace, named alike everywhere, with a Role there and nothing ' +
  'cluster-wide', async (t) => {
  const { dir, read } = await project(t, 'Namespaced');
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const rbac = read('deploy/rbac.yaml');
  // The scaffold's copy says first where it comes from; the rest is what the script writes.
  assert.equal(rbac.split('\n').slice(2).join('\n'), runRbacScript(dir, scripts.rbac!));
  const objects = manifests(rbac);
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`), [
    'ServiceAccount/my-op', 'Role/default', 'RoleBinding/default',
  ]);
  assert.deepEqual(
    objects[1]!.rules!.find((rule) => rule.resources.includes('configmaps'))?.verbs,
    ['create', 'patch', 'delete'],
  );

  // The same namespace wherever the scope is said: the scripts, the Deployment, the image, the
  // peering object, the test.
  assert.match(scripts.rbac!, /^kopf rbac -n default /);
  assert.match(scripts.start!, /^kopf dev -n default /);
  type Deployment = { spec: { template: { spec: { containers: { args: string[] }[] } } } };
  const deployment = parse(read('deploy/deployment.yaml')) as Deployment;
  assert.deepEqual(deployment.spec.template.spec.containers[0]!.args, ['--namespace=default', 'dist/operator.js']);
  assert.match(read('Dockerfile'), /^CMD \["--namespace=default", "dist\/operator\.js"\]$/m);
  const peering = manifests(read('deploy/peering.yaml'));
  assert.deepEqual(
    peering.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`),
    ['KopfPeering/default/default'],
  );
  assert.match(read('test/widget.test.ts'), /const NAMESPACE = 'default';/);
  assert.match(read('test/widget.test.ts'), /args: \['--standalone', '-n', NAMESPACE, '--verbose'\]/);
});

test('a cluster-scoped kind: served cluster-wide; its ConfigMaps, kept in one namespace, are granted there ' +
  'only', async (t) => {
  const { dir, read } = await project(t, 'Cluster');
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const rbac = read('deploy/rbac.yaml');
  assert.equal(rbac.split('\n').slice(2).join('\n'), runRbacScript(dir, scripts.rbac!));
  const objects = manifests(rbac);
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`), [
    'ServiceAccount/my-op', 'ClusterRole/', 'ClusterRoleBinding/', 'Role/default', 'RoleBinding/default',
  ]);
  assert.ok(!objects[1]!.rules!.some((rule) => rule.resources.includes('configmaps')), 'no ConfigMaps cluster-wide');
  assert.deepEqual(
    objects[3]!.rules,
    [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'delete'] }],
  );
  assert.match(
    rbac,
    /^# Cluster-wide, the ClusterRole grants events in every namespace/m,
    'the printout says what is cluster-wide',
  );
  assert.match(scripts.rbac!, /^kopf rbac -A /);
  assert.deepEqual(manifests(read('deploy/peering.yaml')).map((o) => o.kind), ['ClusterKopfPeering']);
});

test('the image: npm ci only (the lock file is required), on a base image set in one ARG that says how to pin it by ' +
  'digest', async (t) => {
  const { read } = await project(t, 'Namespaced');
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+ /.test(line));
  assert.ok(instructions.includes('RUN npm ci --no-audit --no-fund'), dockerfile);
  assert.ok(!instructions.some((line) => /npm install/.test(line)), 'nothing falls back to resolving versions anew');
  assert.ok(
    instructions.includes('COPY package.json package-lock.json ./'),
    'no glob: without its lock file, the build stops',
  );
  assert.equal(instructions[0], 'ARG NODE_IMAGE=node:24-alpine');
  assert.deepEqual(
    instructions.filter((line) => line.startsWith('FROM ')),
    ['FROM ${NODE_IMAGE} AS build', 'FROM ${NODE_IMAGE}'],
  );
  assert.match(dockerfile, /^# +docker buildx imagetools inspect node:24-alpine/m);
  assert.match(dockerfile, /^# +ARG NODE_IMAGE=node:24-alpine@sha256:<that digest>$/m);
});

test('metrics: the image serves them beside /healthz on one port, the pod says where to scrape, and the optional ' +
  'ServiceMonitor and the dashboard are kept apart from what `kubectl apply -f deploy/` applies', async (t) => {
  const { dir, read } = await project(t, 'Namespaced');
  const entrypoint = /^ENTRYPOINT \[(.*)\]$/m.exec(read('Dockerfile'))?.[1];
  assert.match(entrypoint ?? '', /"run", "--liveness=http:\/\/0\.0\.0\.0:8080\/healthz", /);
  assert.match(entrypoint ?? '', /, "--metrics=http:\/\/0\.0\.0\.0:8080\/metrics"$/);
  type Container = { ports: { name: string; containerPort: number }[]; livenessProbe: { httpGet: { port: string } } };
  type Deployment = {
    spec: { template: { metadata: { annotations: Record<string, string> }; spec: { containers: Container[] } } };
  };
  const { template } = (parse(read('deploy/deployment.yaml')) as Deployment).spec;
  assert.deepEqual(
    template.metadata.annotations,
    { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080', 'prometheus.io/path': '/metrics' },
  );
  const [container] = template.spec.containers;
  assert.deepEqual(container!.ports, [{ name: 'http', containerPort: 8080 }]);
  assert.equal(container!.livenessProbe.httpGet.port, 'http');

  type Monitored = Manifest & {
    spec: {
      selector: { matchLabels?: Record<string, string> } & Record<string, unknown>;
      ports?: { name: string; port: number; targetPort: string }[];
      endpoints?: { port: string; path: string }[];
    };
  };
  const [service, monitor] = manifests(read('deploy/monitoring/servicemonitor.yaml')) as Monitored[];
  assert.equal(`${service!.kind}/${service!.metadata.namespace}`, 'Service/my-op');
  assert.deepEqual(service!.spec.selector, { 'app.kubernetes.io/name': 'my-op' });
  assert.deepEqual(service!.spec.ports, [{ name: 'http', port: 8080, targetPort: 'http' }]);
  assert.equal(`${monitor!.kind}/${monitor!.metadata.namespace}`, 'ServiceMonitor/my-op');
  assert.deepEqual(monitor!.spec.selector.matchLabels, { 'app.kubernetes.io/name': 'my-op' });
  assert.deepEqual(monitor!.spec.endpoints?.map((e) => `${e.port}${e.path}`), ['http/metrics']);
  // A JSON file in deploy/ itself would be applied by `kubectl apply -f deploy/`, and fail.
  const dashboard = readFileSync(join(ROOT, 'docs/grafana-dashboard.json'), 'utf8');
  assert.equal(read('deploy/monitoring/grafana-dashboard.json'), dashboard);
  assert.ok(!readdirSync(join(dir, 'deploy')).some((f) => f.endsWith('.json')));
});
