import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generateStubs } from '../../../generator/stubs/index.ts';
import {
  assertRegionsKept,
  certificate,
  endOfImports,
  kopfExample,
  regionsBetween,
  resource,
  sha256,
  tempProject,
} from './helpers.ts';

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
  const report = generateStubs(
    { resources: [resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v1', 'v2'])] },
    project,
  );
  assert.deepEqual(report.unchanged, [project.file(certificate)]);
  assert.deepEqual(report.notes, []);
  assert.equal(sha256(readFileSync(project.file(certificate), 'utf8')), sha256(EDITED_CERTIFICATE));
});

test('a version removed from the CRDs is noted for files that import it; the file stays', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  generateStubs({ resources: [certificate] }, project);
  project.write(certificate, EDITED_CERTIFICATE);
  const report = generateStubs(
    { resources: [resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v2'])] },
    project,
  );
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
  const report = generateStubs({ resources: [certificate] }, project);
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
  assert.equal(generateStubs({ resources: [certificate] }, project).extended.length, 0, 'a second run adds nothing');
  assert.equal(readFileSync(project.file(certificate), 'utf8'), text);
});

test('a version no longer served is noted for files that import it', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  project.write(certificate, EDITED_CERTIFICATE);
  const unserved = resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v1', 'v2']);
  const report = generateStubs(
    { resources: [{ ...unserved, versions: [{ name: 'v1', served: false }, { name: 'v2', served: true }] }] },
    project,
  );
  assert.equal(report.notes.length, 1);
  assert.match(report.notes[0], /cert-manager\.io\/v1\.ts, which kopf-gen no longer generates/);
  assert.equal(readFileSync(project.file(certificate), 'utf8'), EDITED_CERTIFICATE);
});
