import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  assertRegionsKept, certificate, endOfImports, generateStubs, kopfExample, regionsBetween, resource, sha256,
} from './helpers.ts';
import { tempProject } from '../support/project.ts';

/** A handler file as a user leaves it: own formatting, own code, handlers renamed and rewritten. */
const EDITED_CERTIFICATE = `// Certificates: our rotation logic.
import {on} from 'kopf'
import { Certificate } from '../../generated/cert-manager.io/v1.ts'
import { rotate } from '../rotation.ts'

const    RENEW_BEFORE_DAYS = 30   // keep this odd spacing

on.create(Certificate, async function issue({ spec, logger }) {
    logger.info( 'issuing' ) ; await rotate(spec, RENEW_BEFORE_DAYS)
})
on.update(Certificate, async function reissue({ spec }) { await rotate(spec, RENEW_BEFORE_DAYS) })
on.delete(Certificate, async function revoke() {})
`;

test('a new kind in the CRDs gets its file; existing files stay byte for byte', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [certificate] }, project);
  project.write(certificate, EDITED_CERTIFICATE);
  const report = generateStubs({ resources: [certificate, kopfExample] }, project);
  assert.deepEqual(report.created, [project.file(kopfExample)]);
  assert.deepEqual(report.unchanged, [project.file(certificate)]);
  assert.equal(sha256(readFileSync(project.file(certificate), 'utf8')), sha256(EDITED_CERTIFICATE));
});

test('a new version in the CRDs leaves existing files byte for byte, still importing their version', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [certificate] }, project);
  project.write(certificate, EDITED_CERTIFICATE);
  const twoVersions = resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v1', 'v2']);
  const report = generateStubs({ resources: [twoVersions] }, project);
  assert.deepEqual(report.unchanged, [project.file(certificate)]);
  assert.deepEqual(report.notes, []);
  assert.equal(sha256(readFileSync(project.file(certificate), 'utf8')), sha256(EDITED_CERTIFICATE));
});

test('a version removed from the CRDs is noted for files that import it; the file stays', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [certificate] }, project);
  project.write(certificate, EDITED_CERTIFICATE);
  const v2Only = resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v2']);
  const report = generateStubs({ resources: [v2Only] }, project);
  assert.deepEqual(report.unchanged, [project.file(certificate)]);
  assert.equal(report.notes.length, 1);
  assert.match(report.notes[0], /imports .*cert-manager\.io\/v1\.ts, which kopf-gen no longer generates/);
  assert.equal(readFileSync(project.file(certificate), 'utf8'), EDITED_CERTIFICATE);
});

test('a missing stub and the import it needs are added; the rest stays byte for byte', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const original = EDITED_CERTIFICATE
    .replace("import {on} from 'kopf'\n", '')
    .replace(/on\.update\(.*\n/, '');
  project.write(certificate, original);
  const report = generateStubs({ resources: [certificate] }, { ...project, addStubs: true });
  const text = readFileSync(project.file(certificate), 'utf8');
  assert.deepEqual(report.extended, [{
    file: project.file(certificate),
    added: ["import { on } from 'kopf'", 'on.update(Certificate, updateCertificate)'],
  }]);
  assertRegionsKept(text, regionsBetween(original, [endOfImports(original)]));
  assert.match(text, /^import \{ on \} from 'kopf';$/m);
  assert.match(
    text,
    /\n\non\.update\(Certificate, async function updateCertificate\(\{ spec, logger \}\) \{\n  logger/,
  );
  const again = generateStubs({ resources: [certificate] }, { ...project, addStubs: true });
  assert.equal(again.extended.length, 0, 'a second run adds nothing');
  assert.equal(readFileSync(project.file(certificate), 'utf8'), text);
});

test('a version no longer served is noted for files that import it', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  project.write(certificate, EDITED_CERTIFICATE);
  const unserved = resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v1', 'v2']);
  const versions = [{ name: 'v1', served: false }, { name: 'v2', served: true }];
  const report = generateStubs({ resources: [{ ...unserved, versions }] }, project);
  assert.equal(report.notes.length, 1);
  assert.match(report.notes[0], /cert-manager\.io\/v1\.ts, which kopf-gen no longer generates/);
  assert.equal(readFileSync(project.file(certificate), 'utf8'), EDITED_CERTIFICATE);
});

/** A handler file written by hand without an update handler, on purpose. */
const WITHOUT_UPDATE = `import { on } from 'kopf';
import { Certificate } from '../../generated/cert-manager.io/v1.ts';

// Certificates are immutable here: no update handler.
on.create(Certificate, async function issue() {});
on.delete(Certificate, async function revoke() {});
`;

test('regenerating never adds a handler to an existing file: what it lacks is reported', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  project.write(certificate, WITHOUT_UPDATE);
  // Regenerated after a schema change: a new version, served alongside.
  const twoVersions = resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v1', 'v2']);
  const report = generateStubs({ resources: [twoVersions] }, project);
  assert.equal(readFileSync(project.file(certificate), 'utf8'), WITHOUT_UPDATE, 'not a byte changed');
  assert.deepEqual(report.extended, []);
  assert.deepEqual(report.unchanged, [project.file(certificate)]);
  assert.deepEqual(report.missing, [{ file: project.file(certificate), kind: 'Certificate', events: ['update'] }]);
});

test('a handler declined with a skip comment is not reported as missing', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  project.write(certificate, WITHOUT_UPDATE.replace('// Certificates', '// kopf-gen: skip update\n// Certificates'));
  const report = generateStubs({ resources: [certificate] }, project);
  assert.deepEqual(report.missing, []);
  assert.deepEqual(report.unchanged, [project.file(certificate)]);
});
