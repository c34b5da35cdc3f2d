/**
 * Any string as a kind is either refused (at `spec.names`, nothing written) or generates code
 * that compiles under strict TypeScript and, imported with every handler called, runs nothing
 * but the handlers' logging of the kind exactly as written.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { InputError } from '../../../generator/diagnostics/diagnostic.ts';
import { generate } from '../../../generator/index.ts';
import { buildModel } from '../../../generator/model/build.ts';
import { crdJson, runGenerated, typeCheck } from '../support/hostile.ts';
import { tempProject } from '../support/project.ts';
import { source } from '../support/sources.ts';

/** Names a kind could clash with in generated code: globals, kopf's types, words, suffixes of generated names. */
const AWKWARD = [
  'Object', 'Array', 'Promise', 'Function', 'Symbol', 'Error', 'Date', 'Map', 'JSON', 'Record', 'Partial',
  'KubeObject', 'ObjectMeta', 'ResourceDescriptor', 'MergePatch', 'JsonValue', 'JsonObject', 'IntOrString',
  'Condition', 'EmptyObject', 'delete', 'await', 'constructor', 'prototype', '__proto__', 'Input', 'Fields',
  'Patch', 'Spec', 'Status', 'Widget-Input', 'widget', 'WIDGET', 'on', 'kopf', 'A', 'x-y-z', 'List',
];

/** Pieces of code and syntax that a kind would need to break out of what it is written into. */
const BREAKOUTS = [
  '*/', '/*', '//', '${', '}', '`', "'", '"', '\\', '\n', '\r', '\u2028', '\u0000', ';', '(', ')', '../', ' ',
];

const kind = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z][-A-Za-z0-9]{0,24}[A-Za-z0-9]$/) },
  { weight: 2, arbitrary: fc.constantFrom(...AWKWARD) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.oneof(fc.constantFrom(...BREAKOUTS), fc.constantFrom('W', 'i', 'd', 'g', 'e', 't', '-', '1')),
      maxLength: 12,
    }),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
);

/** Each kind gets a group and plural of its own, so that each is refused or accepted on its own. */
function crdFor(value: string, i: number): string {
  return crdJson({ kind: value, group: `g${i}.example.com`, plural: `things${i}` });
}

function refusal(text: string): InputError | undefined {
  try {
    buildModel([source('crds/crd.json', text)]);
    return undefined;
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
}

test(
  'kinds named like globals, kopf\'s types or generated names compile and run nothing but their handlers',
  async () => {
    const accepted = AWKWARD.flatMap((value, i) => (refusal(crdFor(value, i)) ? [] : [[value, i] as const]));
    const refused = AWKWARD.filter((value) => !accepted.some(([a]) => a === value));
    assert.deepEqual(refused, ['__proto__'], 'as by the API server');
    await assertCompilesAndRunsNothing(accepted);
  },
);

test('any string as a kind is refused, or generates code that compiles and runs nothing but its handlers', async () => {
  await fc.assert(fc.asyncProperty(fc.uniqueArray(kind, { minLength: 1, maxLength: 12 }), async (kinds) => {
    const accepted: [string, number][] = [];
    kinds.forEach((value, i) => {
      const refused = refusal(crdFor(value, i));
      if (!refused) {
        accepted.push([value, i]);
        return;
      }
      for (const d of refused.diagnostics) assert.deepEqual(d.path?.slice(0, 2), ['spec', 'names'], refused.message);
    });

    const refusedOne = kinds.findIndex((_, i) => !accepted.some(([, j]) => j === i));
    if (refusedOne >= 0) {
      const others = accepted.map(([value, i]) => crdFor(value, i));
      await assertRefusedWhole(crdFor(kinds[refusedOne]!, refusedOne), others);
    }
    if (accepted.length) await assertCompilesAndRunsNothing(accepted);
  }), { numRuns: 12 });
});

/** A refused CRD among accepted ones refuses the run: nothing is written. */
async function assertRefusedWhole(refused: string, others: readonly string[]): Promise<void> {
  const project = tempProject();
  try {
    writeFileSync(join(project.crds, 'refused.json'), refused);
    others.forEach((text, i) => writeFileSync(join(project.crds, `crd${i}.json`), text));
    const before = project.listing();
    await assert.rejects(
      generate({ inputs: ['crds'], outDir: 'src/generated', stubsDir: 'src/handlers', cwd: project.root }),
      InputError,
    );
    assert.deepEqual(project.listing(), before);
  } finally {
    project.dispose();
  }
}

async function assertCompilesAndRunsNothing(accepted: readonly (readonly [string, number])[]): Promise<void> {
  const project = tempProject();
  try {
    for (const [value, i] of accepted) writeFileSync(join(project.crds, `crd${i}.json`), crdFor(value, i));
    const result = await generate({
      inputs: ['crds'],
      outDir: 'src/generated',
      stubsDir: 'src/handlers',
      cwd: project.root,
    });
    const files = [join(result.outDir, 'index.ts'), ...(result.stubs?.created ?? [])];
    assert.equal(files.length, accepted.length + 1);
    assert.deepEqual(typeCheck(project, files), []);
    const run = runGenerated(project, files);
    const { status, stdout, stderr } = run;
    assert.deepEqual({ status, stdout, stderr }, { status: 0, stdout: '', stderr: '' });
    const expected = accepted.flatMap(([value]) => [
      ['create', value, [`Creating ${value} with spec {}`]],
      ['update', value, [`Updating ${value} to spec {}`]],
      ['delete', value, [`Deleting ${value}`]],
    ]);
    const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    assert.deepEqual(sorted(run.calls.map((c) => [c.event, c.kind, c.messages])), sorted(expected));
  } finally {
    project.dispose();
  }
}
