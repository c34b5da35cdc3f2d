/**
 * The `kopf-gen` command as a user runs it: defaults, exit codes, messages, `--check`, the
 * manifest that protects hand edits, `--force`, and output that is written whole or not at all.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { REPO } from './support/compile.ts';
import { crdYaml } from './support/sources.ts';

const CLI = join(REPO, 'generator/cli/main.ts');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kopf-gen-cli-'));
  mkdirSync(join(dir, 'crds'));
  writeFileSync(join(dir, 'crds', 'things.yaml'), crdYaml());
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function kopfGen(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function read(path: string): string {
  return readFileSync(join(dir, path), 'utf8');
}

test('--help documents the options and exit codes', () => {
  const { code, stdout } = kopfGen('--help');
  assert.equal(code, 0);
  for (
    const text of [
      '--out <dir>',
      '--stubs <dir>',
      '--check',
      '--force',
      '--no-stubs',
      'Exit codes',
      'KindFields',
      'YAML 1.1',
    ]
  ) assert.ok(stdout.includes(text), text);
});

test('a misspelt option or a missing value is a usage error: exit 2, named after kopf-gen, the nearest option', () => {
  const misspelt = kopfGen('--ouut', 'x');
  assert.equal(misspelt.code, 2);
  assert.equal(misspelt.stderr, "kopf-gen: unknown option '--ouut'\n(Did you mean --out?)\nSee `kopf-gen --help`.\n");
  const missing = kopfGen('--out');
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, "kopf-gen: option '--out <dir>' argument missing\nSee `kopf-gen --help`.\n");
  assert.ok(!existsSync(join(dir, 'src')), 'nothing is written');
});

test('defaults: crds/ to src/generated, handler stubs in src/handlers; a second run changes nothing', () => {
  const first = kopfGen();
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /wrote src\/generated \(3 files for 1 CRDs\)/);
  assert.ok(existsSync(join(dir, 'src/generated/test.kopf.dev/v1.ts')));
  assert.match(read('src/generated/index.ts'), /export \{ Thing \} from '\.\/test\.kopf\.dev\/v1\.ts';/);
  assert.ok(existsSync(join(dir, 'src/handlers/test.kopf.dev/things.ts')), first.stdout);
  // A new handler file is not loaded by anything yet: the line that names it says so.
  const created = 'kopf-gen: created src/handlers/test.kopf.dev/things.ts '
    + '(it runs nothing until the operator imports it)';
  assert.ok(first.stdout.split('\n').includes(created), first.stdout);
  const written = statSync(join(dir, 'src/generated/index.ts')).mtimeMs;
  const second = kopfGen();
  assert.equal(second.code, 0);
  assert.match(second.stdout, /src\/generated is up to date/);
  assert.equal(statSync(join(dir, 'src/generated/index.ts')).mtimeMs, written);
});

test('--check: 0 when fresh, 1 and the stale files when not; never writes', () => {
  assert.equal(kopfGen('--no-stubs').code, 0);
  assert.equal(kopfGen('--check', '--no-stubs').code, 0);
  writeFileSync(
    join(dir, 'crds', 'things.yaml'),
    crdYaml(
      {
        schema: '\n          type: object\n          properties: {spec: {type: object, properties: {color: {type: ' +
          'string}}}}'
      }
    ),
  );
  const before = read('src/generated/test.kopf.dev/v1.ts');
  const check = kopfGen('--check');
  assert.equal(check.code, 1);
  assert.match(
    check.stderr,
    /src\/generated is stale \(run kopf-gen to regenerate\):\n {2}kopf-gen\.manifest\.json\n {2}test\.kopf\.dev\/v1\.ts\n/, // lint-ignore: a regular expression cannot wrap
  );
  assert.equal(read('src/generated/test.kopf.dev/v1.ts'), before);
  assert.ok(!existsSync(join(dir, 'src/handlers')), '--no-stubs and --check write no handler files');
});

test('--check: 1 and the stub when a handler file is missing, not with --no-stubs; never writes it', () => {
  assert.equal(kopfGen().code, 0);
  assert.equal(kopfGen('--check').code, 0);
  rmSync(join(dir, 'src/handlers/test.kopf.dev/things.ts'));
  const check = kopfGen('--check', '--quiet');
  assert.equal(check.code, 1);
  assert.equal(
    check.stderr,
    'kopf-gen: stubs to write (run kopf-gen to write them):\n  src/handlers/test.kopf.dev/things.ts (missing)\n',
  );
  assert.ok(!existsSync(join(dir, 'src/handlers/test.kopf.dev/things.ts')));
  assert.equal(kopfGen('--check', '--no-stubs').code, 0);
});

test('a generated file edited by hand is not replaced without --force', () => {
  assert.equal(kopfGen('--no-stubs').code, 0);
  const file = join(dir, 'src/generated/test.kopf.dev/v1.ts');
  writeFileSync(file, `${read('src/generated/test.kopf.dev/v1.ts')}// my note\n`);
  writeFileSync(join(dir, 'crds', 'things.yaml'), crdYaml({ kind: 'Thing', extra: '\n    deprecated: true' }));
  const refused = kopfGen('--no-stubs');
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /not replacing files in .*src\/generated \(use --force to replace them\):\n {2}test\.kopf\.dev\/v1\.ts: edited since kopf-gen wrote it/, // lint-ignore: a regular expression cannot wrap
  );
  assert.match(read('src/generated/test.kopf.dev/v1.ts'), /\/\/ my note\n$/);
  const forced = kopfGen('--no-stubs', '--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.doesNotMatch(read('src/generated/test.kopf.dev/v1.ts'), /my note/);
  assert.match(read('src/generated/test.kopf.dev/v1.ts'), /@deprecated/);
});

test('an output folder that kopf-gen did not write is not replaced without --force', () => {
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'lib', 'mine.ts'), 'export const mine = 1;\n');
  const refused = kopfGen('--out', 'lib', '--no-stubs');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /mine\.ts: the folder has no kopf-gen manifest/);
  assert.equal(read('lib/mine.ts'), 'export const mine = 1;\n');
});

test('invalid input: exit 1, the place of each problem, and nothing written', () => {
  writeFileSync(
    join(dir, 'crds', 'bad.yaml'),
    crdYaml({ kind: 'Bad', schema: '\n          type: object\n          properties: {spec: {$ref: "#/x"}}' }),
  );
  const run = kopfGen();
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    /^crds\/bad\.yaml:\d+:\d+: error: document 1, spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec\.\$ref: /m, // lint-ignore: a regular expression cannot wrap
  );
  assert.match(run.stderr, /1 error; nothing written/);
  assert.ok(!existsSync(join(dir, 'src')));
});

test('files and folders as paths; notes about skipped documents; warnings about pruned status', () => {
  writeFileSync(
    join(dir, 'extra.yaml'),
    `apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n${crdYaml({ kind: 'Extra' })}`,
  );
  const run = kopfGen('crds', 'extra.yaml', '--out', 'gen', '--no-stubs');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /1 note \(documents skipped; --verbose shows them\)/);
  assert.match(run.stderr, /warning: .*things\.test\.kopf\.dev \(v1\): the API server prunes handler results/);
  assert.match(read('gen/test.kopf.dev/v1.ts'), /export interface Extra extends KubeObject/);
  const verbose = kopfGen('crds', 'extra.yaml', '--out', 'gen', '--no-stubs', '--verbose');
  assert.match(
    verbose.stderr,
    /extra\.yaml:\d+:\d+: note: document 1: skipped: not a CustomResourceDefinition \(kind: Namespace\)/,
  );
  assert.equal(kopfGen('missing/', '--no-stubs').code, 1);
});

test('progress is shown on large inputs', () => {
  for (let i = 0; i < 60; i++) writeFileSync(join(dir, 'crds', `k${i}.yaml`), crdYaml({ kind: `Kind${i}` }));
  const run = kopfGen('--no-stubs');
  assert.equal(run.code, 0);
  assert.match(run.stderr, /kopf-gen: reading CRD files \(61, 0\.\d MB of CRDs\)\nkopf-gen: parsing and checking CRDs/);
});

test('input without a CRD: a warning, exit 1 and nothing written, unless --allow-empty', () => {
  writeFileSync(join(dir, 'crds', 'things.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n');
  const refused = kopfGen();
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /kopf-gen: warning: no CustomResourceDefinition in crds\/ \(1 document of other kinds skipped\); nothing written/,
  );
  assert.ok(!existsSync(join(dir, 'src')), 'nothing is written');
  const allowed = kopfGen('--allow-empty');
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /wrote src\/generated \(2 files for 0 CRDs\)/);
});

test('after a schema change, a handler file without an update handler stays as it is, and the run says so', () => {
  assert.equal(kopfGen().code, 0);
  const file = join(dir, 'src/handlers/test.kopf.dev/things.ts');
  const handwritten = read('src/handlers/test.kopf.dev/things.ts').replace(/\non\.update\([^]*?\n\}\);\n/, '\n');
  writeFileSync(file, handwritten);
  const schema = '\n          type: object'
    + '\n          properties: {spec: {type: object, properties: {color: {type: string}}}}';
  writeFileSync(join(dir, 'crds', 'things.yaml'), crdYaml({ schema }));
  const again = kopfGen();
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /kopf-gen: wrote src\/generated/);
  assert.match(again.stdout, /handler files: 0 created, 0 extended, 1 unchanged\n/);
  const note = 'kopf-gen: src/handlers/test.kopf.dev/things.ts has no update handler for Thing; not added, '
    + 'the file is yours (--add-stubs adds it; a comment `// kopf-gen: skip update` in the file stops this note)';
  assert.ok(again.stdout.split('\n').includes(note), again.stdout);
  assert.equal(readFileSync(file, 'utf8'), handwritten, 'not a byte changed');
});

test('with --add-stubs, stubs added to an existing handler file are named, one line each', () => {
  assert.equal(kopfGen().code, 0);
  const file = join(dir, 'src/handlers/test.kopf.dev/things.ts');
  writeFileSync(file, read('src/handlers/test.kopf.dev/things.ts').replace(/\non\.update\([^]*?\n\}\);\n/, '\n'));
  const again = kopfGen('--add-stubs');
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /handler files: 0 created, 1 extended, 0 unchanged\n/);
  assert.match(
    again.stdout,
    /^kopf-gen: added to src\/handlers\/test\.kopf\.dev\/things\.ts: on\.update\(Thing, updateThing\)$/m,
  );
});

test('a status schema that prunes is a warning only where handlers store something there', () => {
  const file = join(dir, 'src', 'handlers', 'test.kopf.dev', 'things.ts');
  const handlers = (...events: string[]): string => [
    "import { on } from 'kopf';",
    "import { Thing } from '../../generated/test.kopf.dev/v1.ts';",
    ...events.map((event) => `on.${event}(Thing, async () => {});`),
  ].join('\n');
  const prunes = /things\.test\.kopf\.dev \(v1\): the API server prunes handler results/;
  // A new kind gets stubs of changing handlers, whose results go to status.
  assert.match(kopfGen().stderr, new RegExp(`warning: .*${prunes.source}`));
  writeFileSync(file, handlers('reconcile', 'index'));
  const reconcilers = kopfGen('--verbose');
  assert.equal(reconcilers.code, 0, reconcilers.stderr);
  assert.doesNotMatch(reconcilers.stderr, new RegExp(`warning: .*${prunes.source}`));
  assert.match(reconcilers.stderr, new RegExp(`note: .*${prunes.source}.*its handlers store nothing in status`));
  writeFileSync(file, handlers('reconcile', 'timer'));
  assert.match(kopfGen().stderr, new RegExp(`warning: .*${prunes.source}`));
});
