import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { writeOutput } from '../../../generator/output/write.ts';
import { planStubs } from '../../../generator/stubs/index.ts';
import type { StubResource, StubsInput, StubsOptions, StubsReport } from '../../../generator/stubs/index.ts';

/** The stubs step alone, as a run does it: planned, then written by the run's one write step. */
export function generateStubs(model: StubsInput, options: StubsOptions): StubsReport {
  const plan = planStubs(model, options);
  writeOutput({ userFiles: plan });
  return plan.report;
}

export function resource(
  group: string,
  kind: string,
  plural: string,
  scope: StubResource['scope'],
  versions: string[],
): StubResource {
  return {
    group,
    kind,
    typeName: kind,
    plural,
    scope,
    preferredVersion: versions[versions.length - 1],
    versions: versions.map((name) => ({ name, served: true })),
  };
}

export const kopfExample = resource('kopf.dev', 'KopfExample', 'kopfexamples', 'Namespaced', ['v1']);
export const certificate = resource('cert-manager.io', 'Certificate', 'certificates', 'Namespaced', ['v1']);
export const clusterIssuer = resource('cert-manager.io', 'ClusterIssuer', 'clusterissuers', 'Cluster', ['v1']);

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The original text cut at the given offsets: the regions kopf-gen must leave untouched. */
export function regionsBetween(text: string, cuts: readonly number[]): string[] {
  const points = [0, ...cuts, text.length];
  return points.slice(1).map((end, i) => text.slice(points[i], end));
}

/**
 * Every region appears in the new text, in order, with the same hash: nothing of the user's text
 * was changed, moved or reformatted, whatever was inserted between the regions.
 */
export function assertRegionsKept(newText: string, regions: readonly string[]): void {
  let cursor = 0;
  for (const region of regions) {
    const at = newText.indexOf(region, cursor);
    assert.ok(at >= 0, `region not kept byte for byte:\n${region}`);
    assert.equal(sha256(newText.slice(at, at + region.length)), sha256(region));
    cursor = at + region.length;
  }
}

/** The offset just after the last import statement of a text. */
export function endOfImports(text: string): number {
  const matches = [...text.matchAll(/^import [^\n]*\n?/gm)];
  const last = matches[matches.length - 1];
  assert.ok(last, 'the text has an import');
  return last.index + last[0].trimEnd().length;
}
