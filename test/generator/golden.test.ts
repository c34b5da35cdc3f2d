/**
 * Golden files: the exact output for CRDs that exercise the tricky features (golden/<case>/input.yaml
 * → golden/<case>/expected/). The expected files are also compiled by the repository's type check,
 * against the real `kopf` facade. After an intended change: KOPF_GEN_UPDATE_GOLDEN=1 node --test …
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { renderFiles } from '../../generator/emit/render.ts';
import { readSource } from '../../generator/input/files.ts';
import { buildModel } from '../../generator/model/build.ts';
import { readTree } from '../../generator/output/tree.ts';

const GOLDEN = join(import.meta.dirname, 'golden');
const update = process.env['KOPF_GEN_UPDATE_GOLDEN'] === '1';

for (const name of readdirSync(GOLDEN).sort()) {
  test(`golden output: ${name}`, () => {
    const dir = join(GOLDEN, name);
    const model = buildModel([readSource(join(dir, 'input.yaml'), dir)]);
    const files = renderFiles(model);
    const expectedDir = join(dir, 'expected');
    if (update) {
      rmSync(expectedDir, { recursive: true, force: true });
      for (const [path, text] of files) {
        mkdirSync(dirname(join(expectedDir, path)), { recursive: true });
        writeFileSync(join(expectedDir, path), text);
      }
    }
    const expected = readTree(expectedDir);
    assert.deepEqual([...files.keys()].sort(), [...expected.keys()].sort(), 'the same files');
    for (const [path, text] of files)
      assert.equal(text, expected.get(path)!.toString('utf8'), `${name}/expected/${path}`);
  });
}

test('generated modules run in Node as they are (type stripping): descriptors and value lists are values', async () => {
  const features = await import('./golden/features/expected/index.ts');
  assert.deepEqual(
    { ...features.Gadget },
    {
      group: 'golden.kopf.dev',
      version: 'v1',
      plural: 'gadgets',
      singular: 'gadget',
      kind: 'Gadget',
      scope: 'Namespaced',
      shortNames: ['gdg'], categories: ['all', 'golden'], subresources: ['status', 'scale'],
      printerColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'State', type: 'string', jsonPath: '.status.state', description: 'Where it is */ now', priority: 1 },
      ],
    },
  );
  const v1 = await import('./golden/features/expected/golden.kopf.dev/v1.ts');
  assert.deepEqual(v1.GadgetSpecSpeedValues, ['Slow', 'slow', 'SLOW', '', 'with space', "it's"]);
  const clashes = await import('./golden/clashes/expected/index.ts');
  assert.equal(clashes.alphaGoldenKopfDev.Certificate.group, 'alpha.golden.kopf.dev');
  assert.equal(clashes.betaGoldenKopfDev.Certificate.group, 'beta.golden.kopf.dev');
  assert.equal(clashes.PodToBe.kind, 'pod-to-be');
  assert.equal('Certificate' in clashes, false, 'a clashing kind is only in its group namespace');
});
