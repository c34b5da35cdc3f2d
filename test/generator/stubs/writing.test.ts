/**
 * The stubs are written in the run's one write step, with the generated folder: checked and staged
 * together, put in place together, taken back together; and `--check` reports the stubs a run would
 * write as it reports stale generated files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeOutput } from '../../../generator/output/write.ts';
import { UnsafePathError } from '../../../generator/paths.ts';
import { generate } from '../../../generator/pipeline/generate.ts';
import { planStubs } from '../../../generator/stubs/index.ts';
import { crdYaml } from '../support/sources.ts';
import { tempProject } from '../support/project.ts';
import { certificate, clusterIssuer, kopfExample } from './helpers.ts';

/** `crdYaml()`'s CRD with a second served version, v1beta1, before its storage version v1. */
const TWO_VERSIONS = crdYaml().replace(/  versions:\n([\s\S]*)$/, (_, version: string) =>
  `  versions:\n${version.replace('storage: true', 'storage: false').replace('name: v1', 'name: v1beta1')}${version}`);

test('a stub that cannot be written writes neither the generated folder nor any other stub', async (t) => {
  const project = tempProject();
  t.after(project.dispose);
  writeFileSync(join(project.crds, 'things.yaml'), TWO_VERSIONS);
  // Where the conversion stubs' folder must be, a file: the handler stub could be written, the conversion not.
  mkdirSync(join(project.root, 'src'));
  writeFileSync(join(project.root, 'src', 'conversions'), 'in the way\n');
  const before = project.listing();
  const options = { inputs: [project.crds], outDir: project.outDir, stubsDir: project.stubsDir };
  const refusal = await generate(options).then(() => undefined, (e: unknown) => e);
  assert.deepEqual(project.listing(), before, 'no generated folder, no handler stub');
  assert.ok(refusal instanceof UnsafePathError && /conversions: not a folder/.test(refusal.message), String(refusal));
});

test('a file that appears between the plan and the write is kept, and nothing else is written', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const plan = planStubs({ resources: [kopfExample, certificate] }, project);
  assert.equal(plan.writes.length, 2);
  project.write(certificate, '// written meanwhile\n');
  const before = project.listing();
  const generated = { outDir: project.outDir, files: new Map([['index.ts', 'export {};\n']]) };
  assert.throws(() => writeOutput({ generated, userFiles: plan }), /EEXIST/);
  assert.deepEqual(project.listing(), before, 'no generated folder, no other stub, no staged file left');
  assert.equal(readFileSync(project.file(certificate), 'utf8'), '// written meanwhile\n');
});

test('a failure after stubs were put in place takes them back: new ones removed, extended ones restored', (t) => {
  const project = tempProject();
  t.after(project.dispose);
  const mine = '// mine\n';
  project.write(certificate, mine);
  project.write(kopfExample, mine);
  const plan = planStubs({ resources: [certificate, clusterIssuer, kopfExample] }, { ...project, addStubs: true });
  assert.deepEqual(plan.writes.map((w) => w.create), [false, true, false]);
  // The last file to extend is gone when its turn comes: the ones before it were already put in place.
  rmSync(project.file(kopfExample));
  const before = project.listing();
  const generated = { outDir: project.outDir, files: new Map([['index.ts', 'export {};\n']]) };
  assert.throws(() => writeOutput({ generated, userFiles: plan }), /ENOENT/);
  assert.deepEqual(project.listing(), before, 'no generated folder, no created stub, no staged or backup file left');
  assert.equal(readFileSync(project.file(certificate), 'utf8'), mine);
});

test('--check reports the stubs a run would write, and writes nothing', async (t) => {
  const project = tempProject();
  t.after(project.dispose);
  writeFileSync(join(project.crds, 'things.yaml'), crdYaml());
  const generatedOnly = { inputs: [project.crds], outDir: project.outDir };
  const options = { ...generatedOnly, stubsDir: project.stubsDir };
  await generate(generatedOnly);
  assert.equal((await generate({ ...generatedOnly, check: true })).status, 'fresh');
  const before = project.listing();
  const check = await generate({ ...options, check: true });
  assert.equal(check.status, 'stale');
  assert.deepEqual(check.stale, [], 'the generated folder itself is fresh');
  assert.deepEqual(check.stubs?.created, [join(project.stubsDir, 'test.kopf.dev', 'things.ts')]);
  assert.deepEqual(project.listing(), before);
  await generate(options);
  assert.equal((await generate({ ...options, check: true })).status, 'fresh');
});
