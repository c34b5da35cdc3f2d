/**
 * The output folder is replaced whole or not at all, and compared with what would be written.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compareOutput } from '../../generator/output/compare.ts';
import { manifestText, MANIFEST_FILE, sha256 } from '../../generator/output/manifest.ts';
import { readTree } from '../../generator/output/tree.ts';
import { writeOutput } from '../../generator/output/write.ts';

/** The write step with the output folder alone. */
function writeFolder(outDir: string, files: ReadonlyMap<string, string>): void {
  writeOutput({ generated: { outDir, files } });
}

function temp(): string {
  return mkdtempSync(join(tmpdir(), 'kopf-gen-out-'));
}

test('a failed write leaves the old output as it was, and no staging folder behind', () => {
  const parent = temp();
  const out = join(parent, 'generated');
  writeFolder(out, new Map([['a.ts', 'old a\n'], ['g/b.ts', 'old b\n']]));
  const broken = new Map([['a.ts', 'new a\n'], ['bad\0name.ts', 'x']]);
  assert.throws(() => writeFolder(out, broken));
  assert.deepEqual([...readTree(out)].map(([p, b]) => [p, b.toString()]), [['a.ts', 'old a\n'], ['g/b.ts', 'old b\n']]);
  assert.deepEqual(readdirSync(parent), ['generated']);
  writeFolder(out, new Map([['c.ts', 'new c\n']]));
  assert.deepEqual([...readTree(out).keys()], ['c.ts'], 'files no longer generated are gone');
  assert.deepEqual(readdirSync(parent), ['generated']);
  rmSync(parent, { recursive: true });
});

test('stale and foreign files', () => {
  const out = temp();
  const files = new Map([['a.ts', 'a\n'], ['b.ts', 'b\n']]);
  mkdirSync(join(out, 'x'));
  writeFileSync(join(out, 'a.ts'), 'a\n');
  writeFileSync(join(out, 'b.ts'), 'b edited\n');
  writeFileSync(join(out, 'x', 'old.ts'), 'old\n');
  writeFileSync(join(out, 'x', 'stray.ts'), 'stray\n');
  writeFileSync(join(out, MANIFEST_FILE), manifestText({
    generator: 'kopf-gen test',
    inputs: [],
    outputs: { 'a.ts': sha256('a\n'), 'b.ts': sha256('b\n'), 'x/old.ts': sha256('old\n') },
  }));
  const result = compareOutput(out, files);
  assert.deepEqual(result.stale, ['b.ts', MANIFEST_FILE, 'x/old.ts', 'x/stray.ts']);
  assert.deepEqual(result.foreign, [
    { path: 'b.ts', reason: 'edited since kopf-gen wrote it' },
    { path: 'x/stray.ts', reason: 'not written by kopf-gen' },
  ]);
  rmSync(out, { recursive: true });
});
