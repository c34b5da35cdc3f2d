/**
 * The import contracts of scripts/check-layers.ts, run on small trees: cycles (type-only imports
 * included) are reported with their files, engines of an independence group may not import each
 * other, and the lists of known cycles and crossings only shrink.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const script = resolve(import.meta.dirname, '../../../scripts/check-layers.ts');

interface Checked { status: number | null; output: string }
interface Contracts { knownCycles?: string[][]; knownCrossings?: string[] }

/** Checks a tree of `files` (path → text) under the given contracts; returns the exit code and output. */
function check(files: Record<string, string>, contracts: Contracts = {}): Checked {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    const layers = {
      layers: {
        'runtime/': [
          { name: 'low', paths: ['runtime/low/'] },
          { name: 'engines', paths: ['runtime/a/', 'runtime/b/'] },
        ],
      },
      independence: [{ name: 'engines', modules: ['runtime/a/', 'runtime/b/'] }],
      knownCycles: contracts.knownCycles ?? [],
      knownCrossings: contracts.knownCrossings ?? [],
      forbiddenPackages: {},
    };
    for (const [path, text] of Object.entries({ 'scripts/layers.json': JSON.stringify(layers), ...files })) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const run = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const cycle = {
  'runtime/low/x.ts': "import type { Y } from './y.ts';\nexport type X = Y[];\n",
  'runtime/low/y.ts': "import { z } from './z.ts';\nexport type Y = string;\nexport const y = z;\n",
  'runtime/low/z.ts': "export type { X } from './x.ts';\nexport const z = 1;\n",
};

describe('the import contracts', () => {
  it('pass a tree without cycles or crossings', () => {
    const result = check({ 'runtime/a/a.ts': "import { z } from '../low/z.ts';\nexport const a = z;\n",
      'runtime/low/z.ts': 'export const z = 1;\n' });
    assert.equal(result.status, 0, result.output);
  });

  it('report a cycle through type-only imports with all of its files', () => {
    const result = check(cycle);
    assert.equal(result.status, 1);
    assert.match(result.output, /import cycle: runtime\/low\/x\.ts <-> runtime\/low\/y\.ts <-> runtime\/low\/z\.ts/);
  });

  it('accept a known cycle, and fail once a known cycle is gone', () => {
    const known = [['runtime/low/z.ts', 'runtime/low/x.ts', 'runtime/low/y.ts']];
    assert.equal(check(cycle, { knownCycles: known }).status, 0);
    const gone = check({ 'runtime/low/z.ts': 'export const z = 1;\n' }, { knownCycles: known });
    assert.equal(gone.status, 1);
    assert.match(gone.output, /is gone; remove it: runtime\/low\/x\.ts <-> runtime\/low\/y\.ts/);
  });

  it('fail when an engine imports another engine of its group, even for a type', () => {
    const result = check({ 'runtime/a/a.ts': "import type { B } from '../b/b.ts';\nexport type A = B;\n",
      'runtime/b/b.ts': 'export type B = number;\n' });
    assert.equal(result.status, 1);
    assert.match(result.output, /independent engines import each other: runtime\/a\/a\.ts -> runtime\/b\/b\.ts/);
  });
});
