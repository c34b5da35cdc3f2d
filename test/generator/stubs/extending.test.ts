import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertRegionsKept, certificate, endOfImports, generateStubs, regionsBetween } from './helpers.ts';
import { tempProject } from '../support/project.ts';

const TEMPLATES = join(import.meta.dirname, '../../../templates/stubs');

function extendOnce(original: string, t: { after(fn: () => void): void }) {
  const project = tempProject();
  t.after(project.dispose);
  project.write(certificate, original);
  const report = generateStubs({ resources: [certificate] }, { ...project, addStubs: true });
  return { report, text: readFileSync(project.file(certificate), 'utf8'), project };
}

test('stubs use the names the file already binds: an aliased on, an aliased descriptor', (t) => {
  const original = [
    "import { on as handle } from 'kopf';",
    "import { Certificate as Cert } from '../../generated/cert-manager.io/v1.ts';",
    '',
    'handle.create(Cert, async function issue() {});',
    '',
  ].join('\n');
  const { report, text } = extendOnce(original, t);
  assert.deepEqual(
    report.extended[0].added,
    ['handle.update(Cert, updateCertificate)', 'handle.delete(Cert, deleteCertificate)'],
  );
  assert.ok(text.startsWith(original));
  assert.match(text, /^handle\.update\(Cert, async function updateCertificate\(/m);
});

test('a namespace import of kopf is used as it is', (t) => {
  const original = [
    "import * as kopf from 'kopf';",
    "import { Certificate } from '../../generated/cert-manager.io/v1.js';", // lint-ignore: a user's .js specifier
    '',
    'kopf.on.create(Certificate, async function issue() {});',
    'kopf.on.update(Certificate, async function reissue() {});',
    '',
  ].join('\n');
  const { report, text } = extendOnce(original, t);
  assert.deepEqual(report.extended[0].added, ['kopf.on.delete(Certificate, deleteCertificate)']);
  assert.ok(text.startsWith(original));
});

test('the descriptor imported from the generated index counts as imported', (t) => {
  const original = "import { on } from 'kopf';\nimport { Certificate } from '../../generated/index.ts';\n";
  const { report, text } = extendOnce(original, t);
  assert.equal(report.extended[0].added.length, 3);
  assert.ok(text.startsWith(original));
  assert.doesNotMatch(text.slice(original.length), /import/);
});

test('a name the file already uses for something else gets an alias in the added import', (t) => {
  const original = [
    "import { on } from 'kopf';",
    "import type { Certificate } from '../certificates/model.ts';",
    '',
  ].join('\n');
  const { report, text } = extendOnce(original, t);
  assert.equal(
    report.extended[0].added[0],
    "import { Certificate as CertificateResource } from '../../generated/cert-manager.io/v1.ts'",
  );
  assert.match(text, /^on\.create\(CertificateResource, async function createCertificate\(/m);
  assertRegionsKept(text, regionsBetween(original, [endOfImports(original)]));
});

test('without any import, imports go after the header comment, not between a comment and its statement', (t) => {
  const original = [
    '/**',
    ' * Our certificates.',
    ' */',
    '',
    '// The renewal margin.',
    'const MARGIN = 30;',
    'void MARGIN;',
    '',
  ].join('\n');
  const { text } = extendOnce(original, t);
  const header = original.indexOf(' */') + 3;
  assertRegionsKept(text, regionsBetween(original, [header]));
  assert.match(
    text,
    /^\/\*\*\n \* Our certificates\.\n \*\/\n\nimport \{ on \} from 'kopf';\nimport \{ Certificate \} from '[^']+';\n\n\/\/ The renewal margin\.\nconst MARGIN = 30;/, // lint-ignore: a regular expression cannot wrap
  );
});

test('without any import or header, imports go first', (t) => {
  const original = 'const MARGIN = 30;\nvoid MARGIN;\n';
  const { text } = extendOnce(original, t);
  assert.match(
    text,
    /^import \{ on \} from 'kopf';\nimport \{ Certificate \} from '[^']+';\n\nconst MARGIN = 30;\nvoid MARGIN;\n\non\.create/, // lint-ignore: a regular expression cannot wrap
  );
});

test('an empty file gets everything', (t) => {
  const { report, text } = extendOnce('', t);
  assert.equal(report.extended[0].added.length, 5);
  assert.match(text, /^import \{ on \} from 'kopf';\nimport \{ Certificate \} from '[^']+';\n\non\.create/);
});

test('a declined stub is not added back', (t) => {
  const original = [
    "import { on } from 'kopf';",
    "import { Certificate } from '../../generated/cert-manager.io/v1.ts';",
    '',
    '// kopf-gen: skip update, delete',
    'on.create(Certificate, async function issue() {});',
    '',
  ].join('\n');
  const { report, text } = extendOnce(original, t);
  assert.deepEqual(report.extended, []);
  assert.equal(text, original);
});

test('a directive inside a JSDoc block, or a block comment of its own, declines stubs too', (t) => {
  const original = [
    "import { on } from 'kopf';",
    "import { Certificate } from '../../generated/cert-manager.io/v1.ts';",
    '',
    '/**',
    ' * Certificates are issued once; changes are for humans.',
    ' * kopf-gen: skip update',
    ' */',
    '/* kopf-gen: skip delete */',
    'on.create(Certificate, async function issue() {});',
    '',
  ].join('\n');
  const { report, text } = extendOnce(original, t);
  assert.deepEqual(report.extended, []);
  assert.equal(text, original);
});

test('a directive that is only mentioned in prose declines nothing', (t) => {
  const original = [
    "import { on } from 'kopf';",
    "import { Certificate } from '../../generated/cert-manager.io/v1.ts';",
    '',
    '/** Leave a comment such as `// kopf-gen: skip delete` to decline a stub. */',
    'on.create(Certificate, async function issue() {});',
    'on.update(Certificate, async function reissue() {});',
    '',
  ].join('\n');
  const { report } = extendOnce(original, t);
  assert.deepEqual(report.extended[0].added, ['on.delete(Certificate, deleteCertificate)']);
});

test('a function already named like a stub counts as that stub, however it is registered', (t) => {
  const original = [
    "import { on } from 'kopf';",
    "import { Certificate } from '../../generated/cert-manager.io/v1.ts';",
    '',
    'export async function updateCertificate() {}',
    'export const deleteCertificate = async () => {};',
    'on.create(Certificate, async function issue() {});',
    '',
  ].join('\n');
  const { report, text } = extendOnce(original, t);
  assert.deepEqual(report.extended, []);
  assert.equal(text, original);
});

test('CRLF files get CRLF insertions', (t) => {
  const original =
    "import { on } from 'kopf';\r\nimport { Certificate } from " +
      "'../../generated/cert-manager.io/v1.ts';\r\n\r\non.create(Certificate, async function issue() {});\r\n";
  const { text } = extendOnce(original, t);
  assert.ok(text.startsWith(original));
  assert.doesNotMatch(text.replaceAll('\r\n', ''), /\n/);
  assert.match(
    text,
    /\r\n\r\non\.update\(Certificate, async function updateCertificate\(\{ spec, logger \}\) \{\r\n  logger\.info/,
  );
});

test('added stubs are formatted on their own; the user code around them is not', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const templatesDir = join(project.root, 'templates');
  cpSync(TEMPLATES, templatesDir, { recursive: true });
  writeFileSync(join(templatesDir, 'on-update.ts.hbs'),
    '{{onRef}}.update( {{kindRef}},async function {{fnName}}( {spec,logger} ){\nlogger.info( "x" )\n} )\n');
  const original = [
    "import {on} from 'kopf'",
    "import {Certificate} from '../../generated/cert-manager.io/v1.ts'",
    '',
    'on.create( Certificate,async function issue( ){ }) // odd, and kept',
    'on.delete( Certificate,async function revoke( ){ })',
  ].join('\n');
  project.write(certificate, original);
  generateStubs({ resources: [certificate] }, { ...project, templatesDir, addStubs: true });
  const text = readFileSync(project.file(certificate), 'utf8');
  assert.equal(
    text,
    `${original}\n\non.update(Certificate, async function updateCertificate({ spec, logger }) {\n  ` +
      `logger.info("x");\n});\n`,
  );
});

test('a file that does not parse is left as it is, with a note', (t) => {
  const original = "import { on } from 'kopf';\n\non.create(Certificate, async function issue( {\n";
  const { report, text } = extendOnce(original, t);
  assert.equal(text, original);
  assert.deepEqual(report.extended, []);
  assert.equal(report.notes.length, 1);
  assert.match(report.notes[0], /certificates\.ts was left as it is: it has \d+ syntax error/);
});
