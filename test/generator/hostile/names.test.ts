/**
 * CRD names become folders, files, import specifiers, identifiers and string literals. Every name
 * the API server refuses (apiextensions validation: a DNS-1123 subdomain with a dot for the group,
 * DNS-1035 labels for versions, plural, singular, short names and categories, and for the kind and
 * list kind in lowercase) is refused by kopf-gen too, at its file and line, with nothing written.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatDiagnostic, InputError } from '../../../generator/diagnostics/diagnostic.ts';
import type { PathSegment } from '../../../generator/diagnostics/diagnostic.ts';
import { generate } from '../../../generator/index.ts';
import { buildModel } from '../../../generator/model/build.ts';
import { source } from '../support/sources.ts';
import { crdJson } from '../support/hostile.ts';
import { tempProject } from '../support/project.ts';
import type { CrdNames } from '../support/hostile.ts';

const LONG = 'a'.repeat(64);

/** Names the API server refuses, and the JSON path kopf-gen must name. */
const REFUSED: readonly [string, CrdNames, readonly PathSegment[]][] = [
  ['group without a dot', { group: 'example' }, ['spec', 'group']],
  ['group in capitals', { group: 'Example.com' }, ['spec', 'group']],
  ['group with an empty label', { group: 'example..com' }, ['spec', 'group']],
  ['group starting with a dot', { group: '.example.com' }, ['spec', 'group']],
  ['group ending with a dot', { group: 'example.com.' }, ['spec', 'group']],
  ['group label starting with -', { group: '-example.com' }, ['spec', 'group']],
  ['group with _', { group: 'exa_mple.com' }, ['spec', 'group']],
  ['group with a slash', { group: 'example.com/x' }, ['spec', 'group']],
  ['group climbing out', { group: '../../outside.example.com' }, ['spec', 'group']],
  ['group with a quote', { group: "exa'mple.com" }, ['spec', 'group']],
  ['group with a line break', { group: 'example.com\nconsole.log(1)' }, ['spec', 'group']],
  ['group with a space', { group: 'ex ample.com' }, ['spec', 'group']],
  ['group with a label over 63', { group: `${LONG}.com` }, ['spec', 'group']],
  ['group over 253', { group: `${'a'.repeat(60)}.`.repeat(5) + 'com' }, ['spec', 'group']],
  ['empty group', { group: '' }, ['spec', 'group']],
  ['group not a string', { group: 7 as unknown as string }, ['spec', 'group']],
  ['version in capitals', { versions: ['V1'] }, ['spec', 'versions', 0, 'name']],
  ['version starting with a digit', { versions: ['1'] }, ['spec', 'versions', 0, 'name']],
  ['version with a dot', { versions: ['v1.0'] }, ['spec', 'versions', 0, 'name']],
  ['version with _', { versions: ['v1_beta'] }, ['spec', 'versions', 0, 'name']],
  ['version ending with -', { versions: ['v-'] }, ['spec', 'versions', 0, 'name']],
  ['version with a quote', { versions: ["v1'"] }, ['spec', 'versions', 0, 'name']],
  ['version climbing out', { versions: ['../v1'] }, ['spec', 'versions', 0, 'name']],
  ['version over 63', { versions: [LONG] }, ['spec', 'versions', 0, 'name']],
  ['second version invalid', { versions: ['v1', 'v2/x'] }, ['spec', 'versions', 1, 'name']],
  ['plural in capitals', { plural: 'Widgets' }, ['spec', 'names', 'plural']],
  ['plural with _', { plural: 'wid_gets' }, ['spec', 'names', 'plural']],
  ['plural with a dot', { plural: 'wid.gets' }, ['spec', 'names', 'plural']],
  ['plural starting with a digit', { plural: '1widgets' }, ['spec', 'names', 'plural']],
  ['plural ending with -', { plural: 'widgets-' }, ['spec', 'names', 'plural']],
  ['plural climbing out', { plural: '../../../../outside' }, ['spec', 'names', 'plural']],
  ['plural over 63', { plural: LONG }, ['spec', 'names', 'plural']],
  ['singular in capitals', { singular: 'Widget' }, ['spec', 'names', 'singular']],
  ['singular with a space', { singular: 'wid get' }, ['spec', 'names', 'singular']],
  ['kind with a comment and code', { kind: 'Widget*/console.log(1);/*' }, ['spec', 'names', 'kind']],
  ['kind with a template substitution', { kind: 'Widget${process.exit(3)}' }, ['spec', 'names', 'kind']],
  ['kind with a quote', { kind: "Wid'get" }, ['spec', 'names', 'kind']],
  ['kind with a backtick', { kind: 'Wid`get' }, ['spec', 'names', 'kind']],
  ['kind with a space', { kind: 'Wid get' }, ['spec', 'names', 'kind']],
  ['kind starting with a digit', { kind: '1Widget' }, ['spec', 'names', 'kind']],
  ['kind starting with -', { kind: '-Widget' }, ['spec', 'names', 'kind']],
  ['kind ending with -', { kind: 'Widget-' }, ['spec', 'names', 'kind']],
  ['kind with _', { kind: 'Wid_get' }, ['spec', 'names', 'kind']],
  ['kind with a dot', { kind: 'Wid.get' }, ['spec', 'names', 'kind']],
  ['kind with a line separator', { kind: 'Wid\u2028get' }, ['spec', 'names', 'kind']],
  ['kind not in ASCII', { kind: 'Wídget' }, ['spec', 'names', 'kind']],
  ['kind over 63', { kind: `W${LONG}` }, ['spec', 'names', 'kind']],
  ['empty kind', { kind: '' }, ['spec', 'names', 'kind']],
  ['kind whose default list kind is over 63', { kind: `W${'a'.repeat(59)}` }, ['spec', 'names', 'kind']],
  ['list kind with a space', { listKind: 'Widget List' }, ['spec', 'names', 'listKind']],
  ['list kind equal to the kind', { listKind: 'Widget' }, ['spec', 'names', 'listKind']],
  ['short name in capitals', { shortNames: ['W'] }, ['spec', 'names', 'shortNames', 0]],
  ['short name with _', { shortNames: ['wg', 'w_g'] }, ['spec', 'names', 'shortNames', 1]],
  ['short name not a string', { shortNames: [1] }, ['spec', 'names', 'shortNames', 0]],
  ['category in capitals', { categories: ['All'] }, ['spec', 'names', 'categories', 0]],
  ['category with a quote', { categories: ["all'"] }, ['spec', 'names', 'categories', 0]],
  // Valid for the API server, but a folder where kopf-gen writes a file of that name.
  ['group named like the index module', { group: 'index.ts' }, ['spec', 'group']],
  ['group named like the manifest', { group: 'kopf-gen.manifest.json' }, ['spec', 'group']],
];

/** Names the API server accepts: kopf-gen must not refuse them. */
const ACCEPTED: readonly [string, CrdNames][] = [
  ['a kind with dashes', { kind: 'pod-to-be' }],
  ['a kind of one letter', { kind: 'A' }],
  ['a lowercase kind', { kind: 'widget' }],
  ['a kind that is a reserved word', { kind: 'delete' }],
  ['a kind named like a global', { kind: 'Object' }],
  ['a kind of 59 characters', { kind: `W${'a'.repeat(58)}` }],
  ['a kind of 63 characters with a list kind', { kind: `W${'a'.repeat(62)}`, listKind: 'WidgetList' }],
  ['a group whose labels start with digits', { group: '1x.2y.example.com' }],
  ['a group of 253 characters', { group: `${`${'a'.repeat(62)}.`.repeat(3)}${'b'.repeat(61)}` }],
  ['a version without a v', { versions: ['x'] }],
  ['a version with dashes', { versions: ['v1-alpha'] }],
  ['a plural of one letter', { plural: 'w' }],
  ['short names and categories', { shortNames: ['wg', 'w-g'], categories: ['all', 'my-things'] }],
];

function diagnosticsOf(text: string): InputError {
  try {
    buildModel([source('crds/crd.json', text)]);
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return e;
  }
  assert.fail('the CRD was accepted');
}

for (const [what, names, path] of REFUSED) {
  test(`refused: ${what}`, async (t) => {
    const error = diagnosticsOf(crdJson(names));
    const at = error.diagnostics.find((d) => JSON.stringify(d.path) === JSON.stringify(path));
    assert.ok(at, `no error at ${JSON.stringify(path)}: ${error.message}`);
    assert.equal(at.severity, 'error');
    assert.match(formatDiagnostic(at), /^crds\/crd\.json:\d+:\d+: error: document 1, spec\./);
    assert.doesNotMatch(formatDiagnostic(at), /[\n\u2028]/, 'the message is one line');

    const project = tempProject();
    t.after(project.dispose);
    writeFileSync(join(project.crds, 'crd.json'), crdJson(names));
    const before = project.listing();
    await assert.rejects(
      generate({ inputs: ['crds'], outDir: 'src/generated', stubsDir: 'src/handlers', cwd: project.root }),
      InputError,
    );
    assert.deepEqual(project.listing(), before, 'nothing written');
  });
}

for (const [what, names] of ACCEPTED) {
  test(`accepted, as by the API server: ${what}`, () => {
    const model = buildModel([source('crds/crd.json', crdJson(names))]);
    assert.equal(model.resources.length, 1);
    assert.match(model.resources[0]!.typeName, /^[A-Z][A-Za-z0-9]*$/);
  });
}
