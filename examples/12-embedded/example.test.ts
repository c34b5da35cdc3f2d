/**
 * The embedding application runs as it is (`node example.ts`), on a local control plane; so does
 * its Python twin under Kopf 1.44. Both greet and see off each object once, and exit by themselves.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runOperator, startControlPlane, type ControlPlane } from 'kopf/testing';
import { kopfPython } from '../../test/e2e/pykopf.ts';
import { CRD_YAML } from '../../test/e2e/rules.ts';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane();
  await cp.installCrds([CRD_YAML]);
});
after(async () => { await cp?.stop(); });

async function runApplication(command: string[], file: string): Promise<void> {
  const app = runOperator({ command, files: [join(import.meta.dirname, file)], kubeconfigPath: cp.kubeconfigPath });
  const exit = await Promise.race([
    app.exited,
    app.waitFor('Exiting the main app.', { timeout: 120_000 }).then(() => app.exited),
  ]);
  const { output } = exit;
  assert.equal(exit.exitCode, 0, output);
  for (let step = 0; step < 3; step++) {
    assert.equal(output.split('\n').filter((line) => line === `Hello, kopf-example-${step}!`).length, 1, output);
    assert.equal(output.split('\n').filter((line) => line === `Good bye, kopf-example-${step}!`).length, 1, output);
  }
  assert.match(output, /Do the main app activity here\. Step 3\/3\./);
}

test('12-embedded: the application runs the operator, greets and sees off each object, and exits', async () => {
  await runApplication([process.execPath], 'example.ts');
});

test('so does its Python Kopf twin', async () => {
  await runApplication([await kopfPython()], 'kopf_twin.py');
});
