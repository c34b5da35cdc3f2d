/**
 * The published packages as a user gets them: built by scripts/build-package.ts, packed, installed
 * from the tarballs into a project outside the repository, then used from plain JavaScript on the
 * Node floor and on the development Node with type stripping off (nothing under node_modules may
 * need it), and from TypeScript against the installed declarations.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { ROOT, buildAndPack, cachedNode, floorMessage, ok, run, type Run } from './packages.ts';

const FLOOR_VERSION = '22.19.0';
/** Older than the floor, and without `import.meta.main` (which came in 22.18). */
const OLD_VERSION = '20.19.5';
const NO_STRIPPING = '--no-experimental-strip-types';
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const COMMANDS = ['kopf', 'kopf-gen', 'create-kopf-operator'];

const temp = mkdtempSync(join(tmpdir(), 'kopf-pack-'));
const project = join(temp, 'project');
let generation: Run = { status: null, stdout: '', stderr: 'not run' };
const bin = (name: string): string => join(project, 'node_modules', '.bin', name);

const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Widget, plural: widgets, singular: widget }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          required: [spec]
          properties:
            spec:
              type: object
              required: [image]
              properties:
                image: { type: string }
                replicas: { type: integer }
`;

/** Plain JavaScript: imports both entry points and starts the installed CLI through kopf/testing. */
const OPERATOR = `import { getDefaultRegistry, on, operator } from 'kopf';
import { runOperator, startControlPlane } from 'kopf/testing';

on.create('widgets.v1.example.com', async function create_fn() {});
const running = runOperator({ args: ['--help'] });
const exit = await running.exited;
console.log(JSON.stringify({
  handlers: getDefaultRegistry().resourceHandlers.length,
  operator: typeof operator,
  startControlPlane: typeof startControlPlane,
  cliExit: exit.exitCode,
  cliUsage: running.lines[0],
}));
`;

/** Plain JavaScript: which modules of client-node importing kopf loads (none: its models are types only). */
const MODULES = `import { registerHooks } from 'node:module';
const seen = [];
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    seen.push(resolved.url);
    return resolved;
  },
});
const kopf = await import('kopf');
const clientNode = seen.filter((url) => url.includes('/@kubernetes/client-node/'));
console.log(JSON.stringify({ pods: kopf.builtins.Pods.plural, clientNode }));
`;

/** TypeScript against the installed declarations and the generated modules; misuse must not compile. */
const CONSUMER = `import { adopt, builtins, on, operator, TemporaryError, type KubeObject } from 'kopf';
import { startControlPlane, type ControlPlane } from 'kopf/testing';
import { generate, type GenerateResult } from 'kopf-gen';
import { Widget } from './src/generated/index.ts';

on.create(Widget, async function create_fn({ spec, logger }) {
  const image: string = spec.image;
  const replicas: number | undefined = spec.replicas;
  // @ts-expect-error: replicas is a number
  const wrong: string | undefined = spec.replicas;
  if (!replicas) throw new TemporaryError(\`no replicas for \${image} yet\`, { delay: 10 });
  logger.info(\`\${image} × \${replicas} \${wrong}\`);
  return { message: 'created' };
});
on.field(Widget, async function replicas_fn({ new: value }) {
  const replicas: number | undefined = value;
  return replicas;
}, { field: 'spec.replicas' });
// @ts-expect-error: not a field of Widget
on.field(Widget, async function nosuch_fn() {}, { field: 'spec.nosuch' });
on.create(Widget, async function child_fn({ body, client, namespace }) {
  const data = { image: body.spec?.image ?? '' };
  const child = adopt({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'data' }, data }, body);
  const created: builtins.ConfigMap = await client.create(builtins.ConfigMaps, child);
  // @ts-expect-error: a ConfigMap's data holds strings
  await client.patch(builtins.ConfigMaps, child.metadata.name, { data: { image: 1 } }, { namespace });
  const started: string | undefined = (await client.get(builtins.Pods, 'p', { namespace })).status?.startTime;
  return { child: created.metadata?.name, started };
});

export async function embedded(objects: KubeObject[]): Promise<string> {
  const cp: ControlPlane = await startControlPlane();
  const namespaces = objects.map((o) => o.metadata?.namespace ?? 'default');
  const running = operator({ kubeconfig: cp.kubeconfig, namespaces });
  await running.ready;
  await running.stop();
  await cp.stop();
  const result: GenerateResult = await generate({
    inputs: ['crds/'], outDir: 'src/generated', check: true, force: false,
  });
  return result.status;
}
`;

let floor = '';
let old = '';

before(async () => {
  [floor, old] = await Promise.all([cachedNode(FLOOR_VERSION), cachedNode(OLD_VERSION)]);
  const tarballs = await buildAndPack(temp, ['runtime', 'generator', 'create']);
  mkdirSync(join(project, 'crds'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await ok('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], { cwd: project });
  writeFileSync(join(project, 'crds', 'widget.yaml'), WIDGET_CRD);
  writeFileSync(join(project, 'op.mjs'), OPERATOR);
  writeFileSync(join(project, 'consumer.ts'), CONSUMER);
  writeFileSync(join(project, 'modules.mjs'), MODULES);
  // The consumer type-checks the generated modules and stubs too: made here, examined by a test below.
  generation = await run(floor, [NO_STRIPPING, bin('kopf-gen'), 'crds/'], { cwd: project });
});

after(() => {
  rmSync(temp, { recursive: true, force: true });
});

test('every command refuses a Node older than the floor with a message and exit 1', async () => {
  for (const command of COMMANDS) {
    const result = await run(old, [bin(command), '--help'], { cwd: project });
    assert.equal(result.status, 1, `${command} --help on Node ${OLD_VERSION}:\n${result.stdout}\n${result.stderr}`);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, floorMessage(command, '22.19', old, OLD_VERSION));
  }
});

test('the packages hold compiled code and a manifest for it, no sources or scripts', () => {
  for (const name of COMMANDS) {
    const dir = join(project, 'node_modules', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.scripts, undefined);
    assert.equal(manifest.devDependencies, undefined);
    assert.deepEqual(asRecord(manifest.exports)['.'], { types: './index.d.ts', default: './index.js' });
    for (const file of ['index.d.ts', 'README.md', 'LICENSE']) {
      assert.ok(existsSync(join(dir, file)), `${name}: ${file}`);
    }
    // Source maps where stack traces are read: in the runtime, which runs inside the user's operator.
    assert.equal(existsSync(join(dir, 'index.js.map')), name === 'kopf', `${name}: index.js.map`);
    if (name === 'kopf') assertMapsNameTheirSources(dir);
    assert.ok(!existsSync(join(dir, 'index.ts')), `${name} ships its TypeScript sources`);
    // The entry that checks the Node first, then loads the compiled command line.
    const cli = realpathSync(bin(name));
    assert.equal(cli, join(dir, 'bin', `${name}.js`));
    assert.match(readFileSync(cli, 'utf8'), /import\('\.\.\/cli\/main\.js'\)/);
    assert.ok(existsSync(join(dir, 'cli', 'main.js')));
    assert.ok(readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n'));
    assert.ok((statSync(cli).mode & 0o111) !== 0, `${cli} is not executable`);
  }
  const kopf = JSON.parse(
    readFileSync(join(project, 'node_modules', 'kopf', 'package.json'), 'utf8')
  ) as Record<string, unknown>;
  assert.deepEqual(asRecord(kopf.exports)['./testing'], { types: './testing.d.ts', default: './testing.js' });
  assert.deepEqual(
    Object.keys(asRecord(kopf.dependencies)).sort(),
    ['@kubernetes/client-node', '@noble/hashes', '@opentelemetry/api', 'prom-client', 'yaml'],
  );
  assert.ok(!existsSync(join(project, 'node_modules', 'kopf', 'node_modules')));
  const create = join(project, 'node_modules', 'create-kopf-operator');
  const templates = join(create, 'templates', 'project');
  assert.ok(existsSync(join(templates, 'src', 'handlers', 'handlers.ts.hbs')), 'the project templates are packed');
  assert.ok(existsSync(join(templates, 'gitignore.hbs')), 'the .gitignore template is packed under a name npm keeps');
});

for (const which of ['floor', 'development'] as const) {
  const nodeOf = (): string => (which === 'floor' ? floor : process.execPath);
  test(`the commands run from node_modules/.bin as JavaScript on the ${which} Node`, async () => {
    const node = nodeOf();
    // Through the shebang, as a shell runs them, with this Node first on PATH.
    const env = { PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`, NODE_OPTIONS: NO_STRIPPING };
    const kopf = await ok(bin('kopf'), ['--help'], { cwd: project, env });
    for (const command of ['run', 'control-plane', 'demo', 'rbac'])
      assert.match(kopf.stdout, new RegExp(`^  ${command} `, 'm'));
    const runHelp = await ok(node, [NO_STRIPPING, bin('kopf'), 'run', '--help'], { cwd: project });
    assert.match(runHelp.stdout, /^Usage: kopf run /);
    const gen = await ok(bin('kopf-gen'), ['--help'], { cwd: project, env });
    assert.match(gen.stdout, /^Usage: kopf-gen /);
    const version = await ok(node, [NO_STRIPPING, bin('kopf-gen'), '--version'], { cwd: project });
    assert.equal(
      version.stdout.trim(),
      JSON.parse(readFileSync(join(ROOT, 'generator', 'package.json'), 'utf8')).version,
    );
    const create = await ok(bin('create-kopf-operator'), ['--help'], { cwd: project, env });
    assert.match(create.stdout, /^Usage: create-kopf-operator /);
  });

  test(`an operator file in plain JavaScript imports kopf and kopf/testing on the ${which} Node`, async () => {
    const node = nodeOf();
    const result = await ok(node, [NO_STRIPPING, 'op.mjs'], { cwd: project, env: { KOPF_TEST_ECHO: '0' } });
    assert.deepEqual(JSON.parse(result.stdout), {
      handlers: 1,
      operator: 'function',
      startControlPlane: 'function',
      cliExit: 0,
      cliUsage: 'Usage: kopf run [options] [files…]',
    });
  });
}

test('the built-in descriptors are typed with client-node\'s models at no cost at run time', async () => {
  const structs = join(project, 'node_modules', 'kopf', 'structs');
  assert.doesNotMatch(
    readFileSync(join(structs, 'builtins.js'), 'utf8'),
    /client-node/,
    'the compiled module imports nothing of client-node',
  );
  assert.match(
    readFileSync(join(structs, 'builtins.d.ts'), 'utf8'),
    /import type \{[^}]*V1Pod[^}]*\} from '@kubernetes\/client-node'/,
  );
  const result = await ok(process.execPath, [NO_STRIPPING, 'modules.mjs'], { cwd: project });
  assert.deepEqual(
    JSON.parse(result.stdout),
    { pods: 'pods', clientNode: [] },
    'importing kopf loads no module of client-node',
  );
});

test('kopf-gen writes modules and handler stubs from its templates, and finds them fresh', async () => {
  const written = generation;
  assert.equal(
    written.status,
    0,
    `kopf-gen crds/ on the floor Node exited ${written.status}:\n${written.stdout}\n${written.stderr}`,
  );
  assert.match(written.stdout, /wrote src\/generated .*for 1 CRDs/);
  assert.match(written.stdout, /handler files: 1 created/);
  const stub = readFileSync(join(project, 'src', 'handlers', 'example.com', 'widgets.ts'), 'utf8');
  assert.match(stub, /^import \{ on \} from 'kopf';$/m);
  assert.match(stub, /on\.create\(Widget, /);
  await ok(process.execPath, [NO_STRIPPING, bin('kopf-gen'), 'crds/', '--check'], { cwd: project });
});

test('a strict TypeScript consumer type-checks against the installed declarations', async () => {
  const files = ['consumer.ts', 'src/handlers/example.com/widgets.ts'];
  const result = await run(process.execPath, [
    TSC, '--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2023', '--allowImportingTsExtensions', ...files,
  ], { cwd: project });
  const errors = result.stdout.split('\n').filter((line) => /: error TS\d+:/.test(line));
  // Other packages' declarations are theirs (client-node's need @types/ws); kopf's and the consumer's must be clean.
  const ours = errors.filter((line) => !/^node_modules\//.test(line) || /^node_modules\/kopf(-gen)?\//.test(line));
  assert.deepEqual(ours, [], result.stdout);
  assert.ok(
    result.status === 0 || errors.length > 0,
    `tsc exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
  );
});

/**
 * Each map names its source within the package, as if it lay beside its `.js`, whatever folder the
 * package was built in; the source itself is in the map.
 */
function assertMapsNameTheirSources(dir: string): void {
  const maps = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js.map'));
  assert.ok(maps.length > 100, `the runtime's maps: ${maps.length}`);
  for (const file of maps) {
    const map = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { sources: string[]; sourcesContent: string[] };
    assert.deepEqual(map.sources, [basename(file).replace(/\.js\.map$/, '.ts')], file);
    assert.equal(map.sourcesContent.length, 1, file);
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
