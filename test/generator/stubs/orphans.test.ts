import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { certificate, clusterIssuer, generateStubs, kopfExample } from './helpers.ts';
import { tempProject } from '../support/project.ts';

test('a handler file whose kind left the CRDs is reported and kept as it is', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [kopfExample, certificate, clusterIssuer] }, project);
  const before = readFileSync(project.file(certificate), 'utf8');
  const report = generateStubs({ resources: [kopfExample, clusterIssuer] }, project);
  assert.deepEqual(report.orphans, [project.file(certificate)]);
  assert.equal(readFileSync(project.file(certificate), 'utf8'), before);
});

test('orphans of a whole group are reported in a stable order', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [clusterIssuer, certificate, kopfExample] }, project);
  const report = generateStubs({ resources: [kopfExample] }, project);
  assert.deepEqual(report.orphans, [project.file(certificate), project.file(clusterIssuer)]);
  assert.ok(existsSync(project.file(certificate)) && existsSync(project.file(clusterIssuer)));
});

test('tests and declarations beside handler files are not orphans', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [kopfExample] }, project);
  project.write({ group: 'kopf.dev', plural: 'kopfexamples.test' }, 'export {};\n');
  project.write({ group: 'kopf.dev', plural: 'shims.d' }, 'export {};\n');
  project.write({ group: 'kopf.dev', plural: 'helpers' }, 'export {};\n');
  const report = generateStubs({ resources: [kopfExample] }, project);
  assert.deepEqual(report.orphans, [`${project.stubsDir}/kopf.dev/helpers.ts`]);
});
