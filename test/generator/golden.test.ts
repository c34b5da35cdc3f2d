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
    for (const [path, text] of files) assert.equal(text, expected.get(path)!.toString('utf8'), `${name}/expected/${path}`);
  });
}
