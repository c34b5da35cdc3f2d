import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { certificate, clusterIssuer, generateStubs, kopfExample, resource } from './helpers.ts';
import { tempProject } from '../support/project.ts';

test('a missing handler file is created with typed create, update and delete handlers', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const report = generateStubs({ resources: [kopfExample] }, project);
  const file = project.file(kopfExample);
  assert.deepEqual(report.created, [file]);
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^import \{ on \} from 'kopf';$/m);
  assert.match(text, /^import \{ KopfExample \} from '\.\.\/\.\.\/generated\/kopf\.dev\/v1\.ts';$/m);
  assert.match(text, /^on\.create\(KopfExample, async function createKopfExample\(/m);
  assert.match(text, /^on\.update\(KopfExample, async function updateKopfExample\(/m);
  assert.match(text, /^on\.delete\(KopfExample, async function deleteKopfExample\(/m);
  assert.ok(text.endsWith('});\n'));
});

test('imports are relative to the handler file wherever the generated modules are', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [certificate] }, { stubsDir: project.stubsDir, outDir: `${project.root}/types` });
  const text = readFileSync(project.file(certificate), 'utf8');
  assert.match(text, /from '\.\.\/\.\.\/\.\.\/types\/cert-manager\.io\/v1\.ts';/);
});

test('new handler files import the version the runtime watches', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs(
    { resources: [resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v1', 'v2'])] },
    project,
  );
  assert.match(
    readFileSync(project.file(certificate), 'utf8'),
    /from '\.\.\/\.\.\/generated\/cert-manager\.io\/v2\.ts';/,
  );
});

test('the scope is named in the header', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [certificate, clusterIssuer] }, project);
  assert.match(readFileSync(project.file(certificate), 'utf8'), /\(certificates\.cert-manager\.io, namespaced\)/);
  assert.match(
    readFileSync(project.file(clusterIssuer), 'utf8'),
    /\(clusterissuers\.cert-manager\.io, cluster-scoped\)/,
  );
});

test('output is deterministic: the same input in any order gives the same bytes', (t) => {
  const first = tempProject();
  const second = tempProject();
  t.after(first.dispose);
  t.after(second.dispose);
  const a = generateStubs({ resources: [kopfExample, certificate, clusterIssuer] }, first);
  const b = generateStubs({ resources: [clusterIssuer, kopfExample, certificate] }, second);
  assert.deepEqual(a.created.map((f) => f.slice(first.root.length)), b.created.map((f) => f.slice(second.root.length)));
  for (const kind of [kopfExample, certificate, clusterIssuer]) {
    assert.equal(readFileSync(first.file(kind), 'utf8'), readFileSync(second.file(kind), 'utf8'));
  }
});

test('a second run changes nothing', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [kopfExample, certificate] }, project);
  const before = [readFileSync(project.file(kopfExample), 'utf8'), readFileSync(project.file(certificate), 'utf8')];
  const report = generateStubs({ resources: [kopfExample, certificate] }, project);
  assert.deepEqual(report.created, []);
  assert.deepEqual(report.extended, []);
  assert.deepEqual(report.unchanged, [project.file(certificate), project.file(kopfExample)]);
  assert.deepEqual(
    [readFileSync(project.file(kopfExample), 'utf8'), readFileSync(project.file(certificate), 'utf8')],
    before,
  );
});

test('the header explaining how to decline a stub does not itself decline one', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [kopfExample] }, project);
  const file = project.file(kopfExample);
  const text = readFileSync(file, 'utf8');
  assert.match(text, /kopf-gen: skip delete/);
  const withoutDelete = text.replace(/\non\.delete[\s\S]*$/, '');
  writeFileSync(file, withoutDelete);
  const report = generateStubs({ resources: [kopfExample] }, { ...project, addStubs: true });
  assert.deepEqual(report.extended.map((e) => e.added), [['on.delete(KopfExample, deleteKopfExample)']]);
});

test('code uses the exported type name; the header and messages use the kind', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const odd = { ...resource('example.com', 'my-thing', 'mythings', 'Namespaced', ['v1']), typeName: 'MyThing' };
  generateStubs({ resources: [odd] }, project);
  const text = readFileSync(project.file(odd), 'utf8');
  assert.match(text, /Handlers for my-thing objects \(mythings\.example\.com, namespaced\)/);
  assert.match(text, /^import \{ MyThing \} from '\.\.\/\.\.\/generated\/example\.com\/v1\.ts';$/m);
  assert.match(
    text,
    /^on\.create\(MyThing, async function createMyThing\(\{ spec, logger \}\) \{\n  logger\.info\(`Creating my-thing with spec/m, // lint-ignore: a regular expression cannot wrap
  );
});
