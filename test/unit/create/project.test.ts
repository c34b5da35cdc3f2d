/**
 * The scaffold's project as it comes: its CRD requires what its handlers read, so that the handlers
 * and the project's test type-check against the types kopf-gen generates from it; and the kind is
 * named with its article by sound ("an EphemeralVolumeClaim").
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { scaffold } from '../../../create/index.ts';
import { withArticle } from '../../../create/project/options.ts';
import { typeChecker } from '../../generator/typed/compile.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
let temp: string;
let project: string;

before(async () => {
  temp = mkdtempSync(join(tmpdir(), 'kopf-project-'));
  project = join(temp, 'claims');
  const options = { dir: project, name: 'claims', kind: 'EphemeralVolumeClaim', group: 'example.com', version: 'v1' };
  await scaffold({ ...options, scope: 'Namespaced', from: ROOT, install: false });
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
});

after(() => rmSync(temp, { recursive: true, force: true }));

test('the kind with its article, by sound', () => {
  const cases: [string, string][] = [
    ['EphemeralVolumeClaim', 'an'], ['Widget', 'a'], ['Ingress', 'an'], ['Order', 'an'], ['Alert', 'an'],
    ['Update', 'an'], ['Umbrella', 'an'], ['Uninstaller', 'an'], ['User', 'a'], ['Unit', 'a'], ['UsageReport', 'a'],
    ['Utility', 'a'], ['EuropeanRegion', 'a'], ['OneTimeJob', 'a'], ['HourlyReport', 'an'], ['Host', 'a'],
    ['HTTPRoute', 'an'],
    ['SQLInstance', 'an'],
    ['S3Bucket', 'an'],
    ['URLMap', 'a'],
    ['GRPCRoute', 'a'],
    ['MySQLCluster', 'a'],
  ];
  assert.deepEqual(cases.map(([kind]) => withArticle(kind)), cases.map(([kind, article]) => `${article} ${kind}`));
});

test("the project's comments and test name say the kind with its article", () => {
  const handlers = readFileSync(join(project, 'src/handlers/example.com/ephemeralvolumeclaims.ts'), 'utf8');
  const tests = readFileSync(join(project, 'test/ephemeralvolumeclaim.test.ts'), 'utf8');
  assert.match(handlers, /that an EphemeralVolumeClaim owns/);
  assert.match(tests, /^test\('an EphemeralVolumeClaim gets a ConfigMap/m);
  for (const file of [handlers, tests]) assert.doesNotMatch(file, /\ba EphemeralVolumeClaim/);
});

test("the CRD requires a spec at its root and the fields the handlers read, which they read as present", () => {
  type Schema = { required?: string[]; properties: { spec: { required?: string[] } } };
  const crd = parse(readFileSync(join(project, 'crds/ephemeralvolumeclaims.yaml'), 'utf8')) as {
    spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
  };
  const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;
  assert.deepEqual(schema.required, ['spec']);
  assert.deepEqual(schema.properties.spec.required, ['greeting']);
  const check = typeChecker();
  for (const file of ['src/operator.ts', 'test/ephemeralvolumeclaim.test.ts']) {
    const findings = check(join(project, file)).filter((f) => f.file.startsWith(`${project}/`));
    assert.deepEqual(findings.map((f) => `${f.file}: TS${f.code} ${f.message}`), [], file);
  }
});
