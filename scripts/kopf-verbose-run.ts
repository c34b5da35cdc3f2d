/**
 * Regenerates test/unit/fixtures/kopf/verbose-run.json: what Python Kopf 1.44 logs with `--verbose`
 * about one object, and the progress records it stores, in a real run on the local control plane.
 * The operator is verbose-run/operator.py; the object is created, its `spec.field` changed, and it is
 * deleted. Kept: the object's log lines (level and message; the bodies and patches of the longer
 * ones cut off at the colon), and every progress record Kopf wrote, in order.
 *
 *     node scripts/kopf-verbose-run.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOperator, startControlPlane } from '../runtime/testing.ts';
import { Cluster } from '../test/e2e/cluster.ts';
import { kopfPython, kopfRunCommand } from '../test/e2e/pykopf.ts';
import { KopfExample } from '../examples/kopfexample.ts';
import { execFileSync } from 'node:child_process';

const FIXTURES = join(import.meta.dirname, '..', 'test', 'unit', 'fixtures', 'kopf');
const OBJECT = { name: 'x1', namespace: 'default' };
const PREFIX = 'kopf.zalando.org/';
const LINE = /^\[[\d-]+ [\d:,]+\] kopf\.objects +\[(\w+) *\] \[default\/x1\] (.*)$/;
/** Messages whose tails are bodies or patches, different in every run. */
const CUT = /^(.*? is in progress|(?:Merge|JSON)-patching the resource with)(:).*$/;

const cp = await startControlPlane();
const cluster = new Cluster(cp.kubeconfigPath);
try {
  await cp.installCrds([join(import.meta.dirname, '..', 'examples', 'crd.yaml')]);
  const operator = runOperator({
    command: await kopfRunCommand(), args: ['-A', '--standalone', '--verbose'],
    files: [join(FIXTURES, 'verbose-run', 'operator.py')], kubeconfigPath: cp.kubeconfigPath,
  });
  await operator.waitFor('Starting the watch-stream for kopfexamples');
  const records: unknown[] = [];
  const watching = cluster.waitFor(KopfExample, OBJECT, (object) => {
    for (const [key, value] of Object.entries(object?.metadata?.annotations ?? {})) {
      const progress = key.startsWith(PREFIX) && !key.endsWith('last-handled-configuration') && !key.endsWith(
        'touch-dummy'
      );
      if (progress) {
        records.push({ handler: key.slice(PREFIX.length), record: JSON.parse(value) as unknown });
      }
    }
    return object === null && records.length > 0;
  }, { timeout: 120_000 });
  const object = {
    apiVersion: 'kopf.dev/v1',
    kind: 'KopfExample',
    metadata: OBJECT,
    spec: { field: 'value' },
  } as const;
  await cluster.create(KopfExample, object);
  await operator.waitFor('Creation is processed:', { timeout: 60_000 });
  await cluster.mergePatch(KopfExample, OBJECT, { spec: { field: 'changed' } });
  await operator.waitFor('Updating is processed:', { timeout: 60_000 });
  await cluster.delete(KopfExample, OBJECT);
  await operator.waitFor('Deleted, really deleted', { timeout: 60_000 });
  await watching;
  const exit = await operator.stop();
  const lines = exit.output.split('\n').flatMap((line) => {
    const match = LINE.exec(line);
    if (!match) return [];
    const [, level, message] = match;
    return [{ level: level!.toLowerCase(), message: message!.replace(CUT, '$1$2 …') }];
  });
  const script = 'import importlib.metadata as m; print(m.version("kopf"))';
  const version = execFileSync(await kopfPython(), ['-c', script]).toString().trim();
  const unique = [...new Set(records.map((r) => JSON.stringify(r)))].map((r) => JSON.parse(r) as unknown);
  const text = JSON.stringify({ kopf: version, lines, records: unique }, null, 1);
  writeFileSync(join(FIXTURES, 'verbose-run.json'), `${text}\n`);
} finally {
  cluster.close();
  await cp.stop();
}
