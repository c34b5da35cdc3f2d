/**
 * The scaffold's memory request and limit leave room for what docs/scaling.md says an idle
 * operator holds (its "Idle memory" table, the largest figure of any Node and form) and for a few
 * thousand objects at the per-object figure the same page gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { DEFAULTS, scaffold } from '../../../create/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const OBJECTS = 3_000;
const KIB_PER_OBJECT = 10;

/** The largest MiB figure in the rows of the idle-memory table. */
function largestIdleFigure(): number {
  const page = readFileSync(join(ROOT, 'docs', 'scaling.md'), 'utf8');
  const table = /\*\*Idle memory\.\*\*[\s\S]*?\n\n(\| Node \|[\s\S]*?)\n\n/.exec(page)?.[1];
  assert.ok(table, 'docs/scaling.md has the idle-memory table');
  const figures = [...table.matchAll(/(\d+) MiB/g)].map((match) => Number(match[1]));
  assert.ok(figures.length >= 4, table);
  return Math.max(...figures);
}

function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  assert.ok(match, quantity);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

test('the Deployment requests the idle figure and a few thousand objects, and limits to twice the idle figure', async (
  t,
) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'kopf-create-')), 'my-op');
  t.after(() => rmSync(resolve(dir, '..'), { recursive: true, force: true }));
  await scaffold({ ...DEFAULTS, dir, name: 'my-op', install: false });
  type Resources = { requests: { memory: string }; limits: { memory: string } };
  type Deployment = { spec: { template: { spec: { containers: { resources: Resources }[] } } } };
  const deployment = parse(readFileSync(join(dir, 'deploy', 'deployment.yaml'), 'utf8')) as Deployment;
  const { resources } = deployment.spec.template.spec.containers[0]!;
  const idle = largestIdleFigure();
  const objects = (OBJECTS * KIB_PER_OBJECT) / 1024;
  assert.ok(mebibytes(resources.requests.memory) >= idle + objects, resources.requests.memory);
  assert.ok(mebibytes(resources.limits.memory) >= 2 * idle, resources.limits.memory);
});
