/**
 * The whole path of a user, from a registry: `npm run release` publishes the three packages into a
 * real local registry (verdaccio, see registry.ts); then, in an empty folder, with a fresh npm cache
 * and no registry but that one, `npx create-kopf-operator my-op --yes` and `npm init kopf-operator
 * my-op2 -- --yes` make projects as the README says, whose `npm start` handles the sample object on
 * a local control plane and whose `npm test` passes. The packages as the registry serves them are
 * examined too: their files, manifests and sizes, and their types from TypeScript consumers.
 * The tests share the registry and the projects, in this order.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, ok, run, start, type Run } from './packages.ts';
import { startRegistry, type LocalRegistry } from './registry.ts';

const temp = mkdtempSync(join(tmpdir(), 'kopf-registry-'));
const users = join(temp, 'users');
const VERSION = versionOf(join(ROOT, 'runtime'));
const PACKAGES = ['kopf', 'kopf-gen', 'create-kopf-operator'];
/**
 * The most each package may pack to and unpack to, in kB: what they are now and some room. A
 * package that outgrows this has taken in something it should not ship (tests, sources, fixtures).
 */
const BUDGETS: Record<string, { packed: number; unpacked: number }> = {
  kopf: { packed: 1100, unpacked: 4000 },
  'kopf-gen': { packed: 75, unpacked: 250 },
  'create-kopf-operator': { packed: 30, unpacked: 120 },
};
/** For each step that installs from the registry or starts a control plane, on a busy machine. */
const LONG = { timeout: 10 * 60_000 };

let registry: LocalRegistry;
let released: Run = { status: null, stdout: '', stderr: 'not run' };

/**
 * npm as a user runs it with only this registry: its own user config (not the machine's), a cache
 * of its own, started empty. No kubeconfig, so `npm start` starts a local control plane; the
 * control-plane binaries are found in the user's cache, as in any project.
 */
function asUser(): NodeJS.ProcessEnv {
  return {
    npm_config_userconfig: registry.npmrc,
    npm_config_registry: registry.url,
    npm_config_cache: join(temp, 'npm-cache'),
    npm_config_update_notifier: 'false',
    KUBECONFIG: join(temp, 'no-such-kubeconfig'),
  };
}

before(async () => {
  mkdirSync(users);
  registry = await startRegistry(join(temp, 'registry'));
  // Exactly the maintainer's command, with the token of the registry's user in npm's config.
  released = await run('npm', ['run', 'release', '--', '--registry', registry.url], { cwd: ROOT, env: asUser() });
}, LONG);

after(async () => {
  await registry?.stop();
  rmSync(temp, { recursive: true, force: true });
});

test('npm run release publishes the three packages at one version; the scaffold pins its kopf-gen', async () => {
  assert.equal(released.status, 0, `${released.stdout}\n${released.stderr}\n${registry.output()}`);
  const ids = PACKAGES.map((name) => `${name}@${VERSION}`);
  assert.match(released.stdout, new RegExp(`^release: published ${ids.join(', ')} to ${registry.url}$`, 'm'));
  for (const name of PACKAGES) {
    const view = await ok('npm', ['view', name, '--json'], { cwd: users, env: asUser() });
    const manifest = JSON.parse(view.stdout) as { version: string; 'dist-tags': Record<string, string> };
    assert.equal(manifest.version, VERSION, name);
    assert.equal(manifest['dist-tags'].latest, VERSION, name);
  }
  const create = await ok('npm', ['view', `create-kopf-operator@${VERSION}`, 'dependencies', '--json'], {
    cwd: users, env: asUser(),
  });
  assert.equal((JSON.parse(create.stdout) as Record<string, string>)['kopf-gen'], VERSION);
});

test('the packages as served: code, README, licence, engines; no tests; maps in kopf only; within budget', async () => {
  const specs = PACKAGES.map((name) => `${name}@${VERSION}`);
  const packed = await ok('npm', ['pack', '--dry-run', '--json', ...specs], { cwd: users, env: asUser() });
  type Packed = { name: string; size: number; unpackedSize: number; files: { path: string }[] };
  for (const pkg of JSON.parse(packed.stdout) as Packed[]) {
    const files = pkg.files.map((file) => file.path);
    const has = (path: string): boolean => files.includes(path);
    for (const path of ['README.md', 'LICENSE', 'package.json', 'index.js', 'index.d.ts']) {
      assert.ok(has(path), `${pkg.name} lacks ${path}: ${files.join(' ')}`);
    }
    // The scaffold's templates hold the new project's test, as a template (.hbs).
    const isTest = (path: string): boolean => /(^|\/)(test|tests|fixtures)\/|\.test\.(js|d\.ts)$/.test(path);
    const tests = files.filter((path) => isTest(path) && !path.endsWith('.hbs'));
    assert.deepEqual(tests, [], `${pkg.name} ships tests`);
    const sources = files.filter((path) => /\.ts$/.test(path) && !path.endsWith('.d.ts'));
    assert.deepEqual(sources, [], `${pkg.name} ships sources`);
    const maps = files.filter((path) => path.endsWith('.map'));
    // The runtime runs inside the user's operator, its stack traces read there: a map for each compiled
    // module. The commands' entries (bin/) are JavaScript as written, their own source.
    const modules = files.filter((path) => path.endsWith('.js') && !path.startsWith('bin/'));
    const expected = pkg.name === 'kopf' ? modules.map((path) => `${path}.map`) : [];
    assert.deepEqual(maps.sort(), expected.sort(), `${pkg.name}: source maps`);
    const budget = BUDGETS[pkg.name];
    assert.ok(pkg.size < budget.packed * 1000, `${pkg.name} packs to ${pkg.size} bytes, over ${budget.packed} kB`);
    const unpacked = `${pkg.name} unpacks to ${pkg.unpackedSize} bytes, over ${budget.unpacked} kB`;
    assert.ok(pkg.unpackedSize < budget.unpacked * 1000, unpacked);
    const view = await ok('npm', ['view', `${pkg.name}@${VERSION}`, 'engines', 'license', '--json'], {
      cwd: users, env: asUser(),
    });
    const { engines, license } = JSON.parse(view.stdout) as { engines?: { node?: string }; license?: string };
    assert.match(engines?.node ?? '', /^>=\d+\.\d+/, `${pkg.name}: engines.node`);
    assert.equal(license, 'MIT');
  }
});

test('npx create-kopf-operator my-op --yes makes a project on the kopf and kopf-gen of its release', LONG, async () => {
  const made = await ok('npx', ['create-kopf-operator', 'my-op', '--yes'], { cwd: users, env: asUser() });
  assert.match(made.stdout, /Next:\n\n {2}cd my-op\n {2}npm start .*\n {2}npm test .*\n/);
  assertPinned(join(users, 'my-op'));
});

test('npm init kopf-operator my-op2 -- --yes makes the same project', LONG, async () => {
  const made = await ok('npm', ['init', 'kopf-operator', 'my-op2', '--', '--yes'], { cwd: users, env: asUser() });
  assert.match(made.stdout, /Next:\n\n {2}cd my-op2\n/);
  assertPinned(join(users, 'my-op2'));
});

test('the installed types resolve with moduleResolution nodenext and bundler, with the generated ones', async () => {
  const project = join(users, 'my-op2');
  const consumer = join(project, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'consumer.ts'), CONSUMER);
  const settings = {
    nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { module: 'preserve', moduleResolution: 'bundler' },
  };
  for (const [name, resolution] of Object.entries(settings)) {
    const compilerOptions = {
      ...resolution, target: 'es2023', lib: ['es2023'], types: ['node'],
      strict: true, noEmit: true, allowImportingTsExtensions: true, skipLibCheck: false,
    };
    writeFileSync(join(consumer, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', `consumer/tsconfig.${name}.json`], { cwd: project });
    const errors = result.stdout.split('\n').filter((line) => /: error TS\d+:/.test(line));
    // Other packages' declarations are theirs (client-node's need @types/ws); kopf's and ours must be clean.
    const ours = errors.filter((line) => !/^node_modules\//.test(line) || /^node_modules\/kopf(-gen)?\//.test(line));
    assert.deepEqual(ours, [], `${name}:\n${result.stdout}`);
    const failed = `tsc (${name}) exited ${result.status}:\n${result.stdout}\n${result.stderr}`;
    assert.ok(result.status === 0 || errors.length > 0, failed);
  }
});

test('in the project, npm start handles the sample object on a local control plane', LONG, async () => {
  const started = start('npm', ['start'], { cwd: join(users, 'my-op'), env: asUser() });
  try {
    await started.seen(/current kubeconfig context cannot be used/);
    await started.seen(/\[default\/example-widget\] Handler 'createWidget' succeeded\./, 300);
    await started.seen(/\[default\/example-widget\] Creation is processed: 2 succeeded; 0 failed\./);
    started.signal('SIGINT');
    const { code, signal } = await started.closed;
    assert.ok(code === 0 || signal === 'SIGINT', `npm start ended with ${code ?? signal}:\n${started.output()}`);
    assert.doesNotMatch(started.output(), /The operator has failed|Error:/);
    assert.match(started.output(), /Stopped; the local control plane is gone with all its state\./);
  } finally {
    started.kill();
  }
});

test('in the project, npm test passes', LONG, async () => {
  const result = await ok('npm', ['test'], { cwd: join(users, 'my-op'), env: asUser() });
  assert.match(result.stdout, /^ℹ pass [1-9]\d*$/m);
  assert.match(result.stdout, /^ℹ fail 0$/m);
});

/** The project names exactly this version of kopf and kopf-gen, and has them installed. */
function assertPinned(project: string): void {
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>; devDependencies: Record<string, string>;
  };
  assert.equal(manifest.dependencies.kopf, VERSION);
  assert.equal(manifest.devDependencies['kopf-gen'], VERSION);
  for (const name of ['kopf', 'kopf-gen']) {
    assert.equal(versionOf(join(project, 'node_modules', name)), VERSION, `${name} installed in ${project}`);
  }
}

function versionOf(packageDir: string): string {
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A consumer of kopf, kopf/testing and the project's generated types; each wrong line must be an error. */
const CONSUMER = `import { on, type KubeObject, type ResourceDescriptor } from 'kopf';
import { startControlPlane, type ControlPlane } from 'kopf/testing';
import { Widget, type WidgetFields, type WidgetSpec } from '../src/generated/index.ts';

const spec: WidgetSpec = { greeting: 'hello' };
// @ts-expect-error: a greeting is a string
const wrong: WidgetSpec = { greeting: 1 };
const field: WidgetFields['spec.greeting'] = spec.greeting;
const descriptor: ResourceDescriptor<Widget, WidgetFields> = Widget;
const object: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', spec } satisfies Widget;
on.field(Widget, async function greetingChanged({ new: value }) {
  const greeting: string | undefined = value;
  return { greeting };
}, { field: 'spec.greeting' });
// @ts-expect-error: not a field of Widget
on.field(Widget, async function nosuch() {}, { field: 'spec.nosuch' });

export async function controlPlane(): Promise<ControlPlane> {
  return startControlPlane();
}
export const used = [wrong, field, descriptor, object];
`;
