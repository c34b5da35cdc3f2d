/**
 * Below the checks of CRD names, the writers hold on their own: every value a stub template
 * writes is escaped for where it lands, and no path is written outside its folder, whatever
 * reaches them (a model built by other code, a name a later check lets through).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../../generator/index.ts';
import { UnsafePathError } from '../../../generator/paths.ts';
import { writeOutput } from '../../../generator/output/write.ts';
import { generateStubs } from '../stubs/helpers.ts';
import type { StubResource } from '../../../generator/stubs/index.ts';
import { REPO } from '../support/compile.ts';
import { crdJson, runGenerated } from '../support/hostile.ts';
import { tempProject } from '../support/project.ts';

const TEMPLATES = join(REPO, 'templates/stubs');
const ESCAPES = ['inComment', 'inString', 'identifier'];

function resource(group: string, kind: string, typeName: string, plural: string): StubResource {
  return {
    group,
    kind,
    typeName,
    plural,
    scope: 'Namespaced',
    preferredVersion: 'v1',
    versions: [{ name: 'v1', served: true }],
  };
}

test('every value in the stub templates goes through the escape for where it lands', () => {
  for (const file of readdirSync(TEMPLATES)) {
    const text = readFileSync(join(TEMPLATES, file), 'utf8');
    for (const [mustache, inner] of text.matchAll(/\{\{\{?([^}]*)\}?\}\}/g)) {
      const expression = inner!.trim();
      // Blocks, partials, `else`: structure, not values written out.
      if (/^[#/>!]|^else$/.test(expression)) continue;
      const helper = expression.split(/\s+/)[0]!;
      const unescaped = `${file}: ${mustache} writes a value without an escape (${ESCAPES.join(', ')})`;
      assert.ok(ESCAPES.includes(helper), unescaped);
    }
  }
});

const HOSTILE_KINDS = [
  'Widget*/console.log("comment");/*',
  'Widget${console.log("substitution")}',
  "Widget';console.log('quote');'",
  'Widget`;console.log("backtick");`',
  'Widget\u2028console.log("separator")',
  'Widget\r\nconsole.log("newline")//',
  'Widget\\',
  'Widget"\u0000\u001b[31m',
];

test('a stub logs its kind as written, whatever the kind holds, and runs nothing else', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const resources = HOSTILE_KINDS.map((kind, i) => resource('example.com', kind, `Widget${i}`, `widgets${i}`));
  const report = generateStubs({ resources }, project);
  assert.equal(report.created.length, HOSTILE_KINDS.length);
  // The generated module the stubs import, reduced to what they use: each descriptor's kind.
  mkdirSync(join(project.outDir, 'example.com'), { recursive: true });
  writeFileSync(join(project.outDir, 'example.com', 'v1.ts'),
    HOSTILE_KINDS.map((kind, i) => `export const Widget${i} = { kind: ${JSON.stringify(kind)} };\n`).join(''));
  const run = runGenerated(project, report.created);
  const { status, stdout, stderr } = run;
  assert.deepEqual({ status, stdout, stderr }, { status: 0, stdout: '', stderr: '' });
  const byKind = new Map(run.calls.map((c) => [`${c.event} ${c.kind}`, c.messages]));
  for (const kind of HOSTILE_KINDS) {
    assert.deepEqual(byKind.get(`create ${kind}`), [`Creating ${kind} with spec {}`]);
    assert.deepEqual(byKind.get(`update ${kind}`), [`Updating ${kind} to spec {}`]);
    assert.deepEqual(byKind.get(`delete ${kind}`), [`Deleting ${kind}`]);
  }
});

test('a name that is not a name is never written where code expects one', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const widget = resource('example.com', 'Widget', 'Widget;process.exit(1)', 'widgets');
  assert.throws(() => generateStubs({ resources: [widget] }, project), /not a name for generated code/);
  assert.ok(!existsSync(project.stubsDir));
});

test('handler files outside the stubs folder are refused, and nothing is written', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const before = project.listing();
  for (const [group, plural] of [
    ['../../outside', 'widgets'],
    ['example.com', '../../../outside'],
    ['example.com', 'a/b'],
    ['..', 'x'],
  ]) {
    const good = resource('example.com', 'Gadget', 'Gadget', 'gadgets');
    const outside = resource(group!, 'Widget', 'Widget', plural!);
    assert.throws(() => generateStubs({ resources: [good, outside] }, project), UnsafePathError);
    assert.deepEqual(project.listing(), before, `${group} ${plural}: nothing written, not even the valid file`);
  }
});

test('a handler file that is a link to nothing is refused, not written through', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const target = join(project.root, '..', 'elsewhere.ts');
  mkdirSync(join(project.stubsDir, 'example.com'), { recursive: true });
  symlinkSync(target, join(project.stubsDir, 'example.com', 'widgets.ts'));
  assert.throws(() => generateStubs({ resources: [resource('example.com', 'Widget', 'Widget', 'widgets')] }, project),
    (e: unknown) => e instanceof UnsafePathError && /a link to nothing/.test(e.message));
  assert.ok(!existsSync(target));
});

test('a refusal of the stubs step writes no generated module either', async (t) => {
  const project = tempProject();
  t.after(project.dispose);
  writeFileSync(join(project.crds, 'crd.json'), crdJson());
  mkdirSync(join(project.stubsDir, 'example.com'), { recursive: true });
  symlinkSync(join(project.root, 'nowhere.ts'), join(project.stubsDir, 'example.com', 'widgets.ts'));
  const before = project.listing();
  await assert.rejects(
    generate({ inputs: ['crds'], outDir: 'src/generated', stubsDir: 'src/handlers', cwd: project.root }),
    UnsafePathError,
  );
  assert.deepEqual(project.listing(), before);
});

test(
  'generated files outside the output folder, or a file where a folder goes, are refused before anything is written',
  (t) => {
    const project = tempProject();
    t.after(project.dispose);
    const before = project.listing();
    for (const files of [
      [['index.ts', 'x'], ['../outside.ts', 'x']],
      [['index.ts', 'x'], ['/etc/outside.ts', 'x']],
      [['a/./b.ts', 'x']],
      [['a\\..\\..\\b.ts', 'x']],
      [['index.ts', 'x'], ['index.ts/v1.ts', 'x']],
    ] as [string, string][][]) {
      const generated = { outDir: project.outDir, files: new Map(files) };
      assert.throws(() => writeOutput({ generated }), UnsafePathError, JSON.stringify(files));
      assert.deepEqual(project.listing(), before, `${JSON.stringify(files)}: nothing written`);
    }
  },
);
