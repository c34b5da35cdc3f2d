/**
 * create-kopf-operator as a new user meets it, offline: the three packages built and packed, the
 * command installed from its tarball, a project scaffolded `--from` the tarballs and installed;
 * then the project's own type check, its RBAC against `kopf rbac`, and `npm test` on a local control
 * plane (the operator bound to that RBAC), `npm start` without a kubeconfig, the image build
 * (where a container builder answers), the project on a Node older than the floor, and a schema
 * change. The tests share the one project, in this order; the schema change comes last, since it
 * breaks it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { buildAndPack, cachedNode, floorMessage, ok, run, start, type Run } from '../packaging/packages.ts';

const temp = mkdtempSync(join(tmpdir(), 'kopf-scaffold-'));
const packages = join(temp, 'packages');
const tool = join(temp, 'tool');
const project = join(temp, 'my-op');
const HANDLERS = join(project, 'src', 'handlers', 'example.com', 'widgets.ts');
const CRD = join(project, 'crds', 'widgets.yaml');
/** npm takes what it has cached (typescript, @types/node, kopf's dependencies) without asking the registry. */
const OFFLINE = { npm_config_prefer_offline: 'true' };
/** The Node a user may have on PATH, older than the floor. */
const OLD_VERSION = '20.19.5';
let old = '';
const create = (): string => join(tool, 'node_modules', '.bin', 'create-kopf-operator');
let scaffolded: Run = { status: null, stdout: '', stderr: 'not run' };

before(async () => {
  old = await cachedNode(OLD_VERSION);
  const tarballs = await buildAndPack(join(temp, 'build'), ['runtime', 'generator', 'create'], packages);
  mkdirSync(tool);
  writeFileSync(join(tool, 'package.json'), JSON.stringify({ name: 'tool', private: true }));
  // create-kopf-operator with the kopf-gen it depends on, as npx would install them.
  const tools = tarballs.filter((t) => !/\/kopf-\d/.test(t));
  await ok('npm', ['install', '--no-audit', '--no-fund', ...tools], { cwd: tool, env: OFFLINE });
  scaffolded = await run(create(), ['my-op', '--yes', '--from', packages], { cwd: temp, env: OFFLINE });
});

after(() => {
  rmSync(temp, { recursive: true, force: true });
});

test('create-kopf-operator --yes --from tarballs makes a project, installs it, names the next three commands', () => {
  assert.equal(scaffolded.status, 0, `${scaffolded.stdout}\n${scaffolded.stderr}`);
  for (const file of [
    'package.json', 'tsconfig.json', '.gitignore', '.npmrc', 'README.md', 'Dockerfile',
    'crds/widgets.yaml', 'samples/widget.yaml',
    'src/operator.ts', 'src/handlers/example.com/widgets.ts', 'src/generated/example.com/v1.ts', 'test/widget.test.ts',
    'deploy/rbac.yaml',
    'deploy/deployment.yaml',
    'deploy/peering-crds.yaml',
    'deploy/peering.yaml',
    'deploy/monitoring/servicemonitor.yaml',
    'deploy/monitoring/grafana-dashboard.json',
    'deploy/health.lua',
    'node_modules/kopf/package.json',
    'node_modules/.bin/kopf-gen',
  ]) assert.ok(existsSync(join(project, file)), `${file} is missing`);
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>; dependencies: Record<string, string>; devDependencies: Record<string, string>;
  };
  assert.deepEqual(Object.keys(manifest.scripts).sort(), ['build', 'gen', 'rbac', 'start', 'test', 'typecheck']);
  assert.match(manifest.dependencies.kopf, /^file:vendor\/kopf-\d+\.\d+\.\d+\.tgz$/);
  assert.match(manifest.devDependencies['kopf-gen'], /^file:vendor\/kopf-gen-\d+\.\d+\.\d+\.tgz$/);
  assert.match(scaffolded.stdout, /Next:\n\n {2}cd my-op\n {2}npm start .*\n {2}npm test .*\n/);
  type Schema = { openAPIV3Schema: { properties: Record<string, Record<string, unknown>> } };
  type Version = { subresources?: { status?: object }; schema: Schema; additionalPrinterColumns: { name: string }[] };
  const crd = parse(readFileSync(CRD, 'utf8')) as { spec: { versions: Version[] } };
  const [version] = crd.spec.versions;
  assert.deepEqual(version.subresources?.status, {});
  const status = version.schema.openAPIV3Schema.properties.status;
  assert.equal(status['x-kubernetes-preserve-unknown-fields'], true);
  // What tools read is declared, so that the API server keeps it whatever becomes of the rest.
  assert.deepEqual(Object.keys(status.properties as object), ['observedGeneration', 'conditions']);
  assert.deepEqual(version.additionalPrinterColumns.map((c) => c.name).slice(-2), ['Ready', 'Age']);
  assert.deepEqual(version.schema.openAPIV3Schema.properties.spec.required, ['greeting']);
  assert.match(readFileSync(join(project, 'src', 'operator.ts'), 'utf8'), /settings\.status\.conditions = true;/);
  assert.match(readFileSync(join(project, 'deploy', 'health.lua'), 'utf8'),
    /resource\.customizations\.health\.example\.com_Widget/);
});

test('a folder that is not empty is refused; without a terminal, missing values are named', async () => {
  const again = await run(create(), ['my-op', '--yes', '--from', packages, '--no-install'], { cwd: temp });
  assert.equal(again.status, 1);
  assert.match(again.stderr, /my-op is not empty/);
  const unasked = await run(create(), ['other', '--kind', 'Gadget'], { cwd: temp });
  assert.equal(unasked.status, 2);
  assert.match(unasked.stderr, /nothing can be asked: give --group, --api-version, --scope, or --yes for the defaults/);
  assert.ok(!existsSync(join(temp, 'other')));
});

test('the new project type-checks', async () => {
  await ok('npm', ['run', 'typecheck'], { cwd: project });
});

test('deploy/rbac.yaml is what kopf rbac derives from the handlers', async () => {
  const rbac = join(project, 'deploy', 'rbac.yaml');
  const scaffolded = readFileSync(rbac, 'utf8');
  await ok('npm', ['run', 'rbac'], { cwd: project });
  const derived = readFileSync(rbac, 'utf8');
  assert.match(derived, /configmaps: create, patch, delete — declared with requires\(\)/);
  // The namespace served by name: a Role there, nothing cluster-wide, for `npm test` to run under.
  const kinds = parseAllDocuments(derived).map((doc) => (doc.toJS() as { kind: string }).kind);
  assert.deepEqual(kinds, ['ServiceAccount', 'Role', 'RoleBinding']);
  // The scaffold's copy says first where it comes from; the rest is the same text.
  assert.equal(scaffolded.split('\n').slice(2).join('\n'), derived);
});

test('the new project passes its own test on a local control plane', async () => {
  const result = await ok('npm', ['test'], { cwd: project });
  assert.match(result.stdout, /^ℹ pass 1$/m);
  assert.match(result.stdout, /^ℹ fail 0$/m);
});

test('npm run gen warns when the status schema would prune what tools read', async () => {
  const crd = readFileSync(CRD, 'utf8');
  try {
    // Neither declared nor preserved: the API server would drop observedGeneration and conditions.
    const pruning = crd.replace(/\n {14}x-kubernetes-preserve-unknown-fields: true\n(?: {14}#.*\n)*/, '\n')
      .replace(/\n {14}properties:\n {16}observedGeneration:[\s\S]*$/, '\n');
    assert.notEqual(pruning, crd);
    writeFileSync(CRD, pruning);
    const gen = await ok('npm', ['run', 'gen'], { cwd: project });
    const warning = /prunes status\.observedGeneration and status\.conditions, which settings\.status\.conditions/;
    assert.match(gen.stderr, warning);
  } finally {
    writeFileSync(CRD, crd);
    await ok('npm', ['run', 'gen'], { cwd: project });
  }
});

test('npm run build compiles what the image runs: plain JavaScript that kopf run loads', async () => {
  await ok('npm', ['run', 'build'], { cwd: project });
  for (const file of ['dist/operator.js', 'dist/handlers/example.com/widgets.js', 'dist/generated/example.com/v1.js']) {
    assert.ok(existsSync(join(project, file)), `${file} is missing`);
  }
  // The image's command, with type stripping off: the files load (handlers registered), then the
  // operator stops for want of a cluster.
  const command = ['--no-experimental-strip-types', 'node_modules/kopf/bin/kopf.js', 'run', '-A', 'dist/operator.js'];
  const env = { KUBECONFIG: join(temp, 'no-such-kubeconfig') };
  const image = await run(process.execPath, command, { cwd: project, env });
  assert.equal(image.status, 1, `${image.stdout}\n${image.stderr}`);
  assert.doesNotMatch(image.stderr, /cannot load/);
  assert.match(`${image.stdout}${image.stderr}`, /The operator has failed: .*no-such-kubeconfig/);
});

test('npm start without a kubeconfig runs the operator on a local control plane; Ctrl-C leaves nothing', async () => {
  const started = start('npm', ['start'], { cwd: project, env: { KUBECONFIG: join(temp, 'no-such-kubeconfig') } });
  try {
    const [, kubeconfig] = await started.seen(/export KUBECONFIG=(\S+)/);
    await started.seen(/Press Ctrl-C to stop\./);
    await started.seen(/\[default\/example-widget\] Handler 'createWidget' succeeded\./);
    await started.seen(/\[default\/example-widget\] Creation is processed: 2 succeeded; 0 failed\./);
    // Ctrl-C in a terminal signals the whole process group: npm and the operator under it. npm
    // ends on it at once; its output pipes close when the operator has ended too.
    started.signal('SIGINT');
    const { code, signal } = await started.closed;
    const output = started.output();
    assert.ok(code === 0 || signal === 'SIGINT', `npm start ended with ${code ?? signal}:\n${output}`);
    assert.doesNotMatch(output, /The operator has failed|Error:/);
    assert.match(output, /current kubeconfig context cannot be used/);
    assert.match(output, /Stopped; the local control plane is gone with all its state\./);
    assert.ok(!existsSync(dirname(kubeconfig)), `${dirname(kubeconfig)} is left behind`);
  } finally {
    started.kill();
  }
});

test('the Dockerfile builds, where a container builder answers', async (t) => {
  const builder = await containerBuilder();
  if (!builder) {
    t.skip('no container builder answers here (docker, podman or buildah): the image was not built');
    return;
  }
  await ok(builder, ['build', '-t', 'kopf-scaffold-test:latest', '.'], { cwd: project });
});

test('on a Node older than the floor, npm install refuses and the scripts stop, naming the Node they ' +
  'need', async () => {
  const env = { PATH: `${dirname(old)}${delimiter}${process.env.PATH ?? ''}` };
  const install = await run(
    'npm',
    ['install', '--no-audit', '--no-fund'],
    { cwd: project, env: { ...OFFLINE, ...env } },
  );
  assert.notEqual(install.status, 0, `${install.stdout}\n${install.stderr}`);
  assert.match(install.stderr, /EBADENGINE/);
  assert.match(install.stderr, /"node":">=22\.19"/);
  assert.ok(
    existsSync(join(project, 'node_modules', 'kopf', 'package.json')),
    'the refused install left the project as it was',
  );
  for (const [script, command] of [['start', 'kopf'], ['test', 'kopf'], ['gen', 'kopf-gen']]) {
    const result = await run('npm', ['run', script], { cwd: project, env });
    assert.equal(result.status, 1, `npm run ${script}:\n${result.stdout}\n${result.stderr}`);
    assert.ok(
      result.stderr.includes(floorMessage(command, '22.19', old, OLD_VERSION)),
      `npm run ${script}:\n${result.stderr}`,
    );
  }
});

test('after a schema change, npm run gen updates the types; the type check finds a removed field', async () => {
  const handlers = readFileSync(HANDLERS, 'utf8');
  // spec.greeting becomes spec.message.
  const crd = readFileSync(CRD, 'utf8');
  const renamed = crd.replace('required: [greeting]', 'required: [message]')
    .replace(/(\n\s+)greeting:(\n\s+type: string)/, '$1message:$2');
  writeFileSync(CRD, renamed);
  assert.notEqual(readFileSync(CRD, 'utf8'), crd);
  const gen = await ok('npm', ['run', 'gen'], { cwd: project });
  assert.match(gen.stdout, /kopf-gen: wrote src\/generated/);
  assert.match(gen.stdout, /handler files: 0 created, 0 extended, 1 unchanged/);
  assert.equal(readFileSync(HANDLERS, 'utf8'), handlers, 'the handler file is the user\'s: not a byte changed');
  const check = await run('npm', ['run', 'typecheck'], { cwd: project });
  assert.notEqual(check.status, 0, check.stdout);
  const error = /src\/handlers\/example\.com\/widgets\.ts\(\d+,\d+\): error TS2339: Property 'greeting' does not exist/;
  assert.match(check.stdout, error);
});

/** The first of docker, podman and buildah that is installed and whose daemon (if any) answers. */
async function containerBuilder(): Promise<string | undefined> {
  for (const name of ['docker', 'podman', 'buildah']) {
    const answer = await run(name, ['info']).catch(() => undefined);
    if (answer?.status === 0) return name;
  }
  return undefined;
}
