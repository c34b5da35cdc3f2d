/**
 * The runtime's source maps as published: tsc names each source by its path from the output folder,
 * which spells out where the package was built (a release's temporary folder, the repository's
 * path); the build makes `sources` relative to the package, as if each source lay beside its `.js`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { packageRelativeMap } from '../../../scripts/build-package.ts';

test('a map built outside the repository names its source within the package', () => {
  const pkgDir = '/work/checkout/kopf-ts/runtime';
  const outDir = '/tmp/kopf-release-abc/runtime';
  for (const file of ['index', 'kube/client', 'testing/controlplane/binaries']) {
    const mapFile = join(outDir, `${file}.js.map`);
    // As tsc writes it: the path from the map's folder to the source in the repository.
    const emitted = relative(join(mapFile, '..'), join(pkgDir, `${file}.ts`));
    assert.match(emitted, /kopf-ts\/runtime/);
    const text = JSON.stringify({ version: 3, sourceRoot: '', sources: [emitted], sourcesContent: ['x'] });
    const map = JSON.parse(packageRelativeMap({ pkgDir, outDir }, mapFile, text)) as Record<string, unknown>;
    assert.deepEqual(map.sources, [`${file.split('/').pop()}.ts`]);
    assert.deepEqual(map.sourcesContent, ['x'], 'the sources stay in the map');
    assert.equal(map.sourceRoot, undefined);
  }
});
