/**
 * The commands' entry (the Node-floor check that runs before anything is imported) has one source,
 * scripts/command-entry.js: each package's bin/ holds a copy of it, and a copy that drifts is found
 * (by `npm run lint`) and written again from the source. What the entry prints on an old Node is
 * test/e2e/packaging/node-floor.test.ts's; what a release publishes, pack.test.ts's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  ENTRY_SOURCE, commandEntries, driftedEntries, writeEntries,
} from '../../../scripts/command-entries.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

test('the three commands\' entries are copies of their one source', () => {
  assert.deepEqual(commandEntries(), [
    'runtime/bin/kopf.js', 'generator/bin/kopf-gen.js', 'create/bin/create-kopf-operator.js',
  ]);
  assert.deepEqual(driftedEntries(), []);
  const source = readFileSync(join(ROOT, ENTRY_SOURCE), 'utf8');
  assert.match(source, /^#!\/usr\/bin\/env node\n/);
  assert.match(source, /needs Node \$\{floor\} or newer/);
});

test('a copy that drifts, or is missing, is found, and written again from the source', () => {
  const root = mkdtempSync(join(tmpdir(), 'kopf-entries-'));
  try {
    const manifests = ['runtime', 'generator', 'create'].map((dir) => `${dir}/package.json`);
    for (const file of ['package.json', ENTRY_SOURCE, ...manifests]) cpSync(join(ROOT, file), join(root, file));
    const [kopf, gen, create] = commandEntries(root);
    assert.deepEqual(driftedEntries(root), [kopf, gen, create], 'none written yet');
    assert.deepEqual(writeEntries(root), [kopf, gen, create]);
    assert.deepEqual(driftedEntries(root), []);
    assert.equal(statSync(join(root, gen!)).mode & 0o777, 0o755, 'a command');
    writeFileSync(join(root, gen!), readFileSync(join(root, gen!), 'utf8').replace('needs Node', 'wants Node'));
    chmodSync(join(root, gen!), 0o755);
    assert.deepEqual(driftedEntries(root), [gen]);
    assert.deepEqual(writeEntries(root), [gen]);
    assert.equal(readFileSync(join(root, gen!), 'utf8'), readFileSync(join(ROOT, ENTRY_SOURCE), 'utf8'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
