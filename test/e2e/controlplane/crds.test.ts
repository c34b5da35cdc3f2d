import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../../runtime/testing.ts';

function crd(
  kind: string,
  plural: string,
  columns: { name: string; jsonPath: string; type: string }[] = [],
): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.cp-test.kopf.dev` },
    spec: {
      group: 'cp-test.kopf.dev',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase() },
      versions: [
        {
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          additionalPrinterColumns: columns,
        },
      ],
    },
  };
}

let cp: ControlPlane;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kopf-crds-'));
  cp = await startControlPlane();
});

after(async () => {
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('CRDs from a multi-document YAML file are Established and usable right away', async () => {
  const file = join(dir, 'crds.yaml');
  writeFileSync(
    file,
    `---\n${JSON.stringify(crd('Apple', 'apples'))}\n---\n# a comment-only ` +
      `document\n---\n${JSON.stringify(crd('Pear', 'pears'))}\n`,
  );
  await cp.installCrds([file]);

  const extensions = cp.kubeconfig.makeApiClient(ApiextensionsV1Api);
  for (const name of ['apples.cp-test.kopf.dev', 'pears.cp-test.kopf.dev']) {
    const current = await extensions.readCustomResourceDefinition({ name });
    assert.ok(current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'), name);
  }
  // The very next request for the new resource must not 404.
  const objects = cp.kubeconfig.makeApiClient(CustomObjectsApi);
  const created = await objects.createNamespacedCustomObject({
    group: 'cp-test.kopf.dev', version: 'v1', namespace: 'default', plural: 'pears',
    body: { apiVersion: 'cp-test.kopf.dev/v1', kind: 'Pear', metadata: { name: 'p1' }, spec: { ripe: true } },
  }) as { metadata: { name: string } };
  assert.equal(created.metadata.name, 'p1');
});

test('installing again replaces the CRD (create-or-replace), from objects too', async () => {
  await cp.installCrds([crd('Plum', 'plums')]);
  const column = { name: 'Colour', jsonPath: '.spec.colour', type: 'string' };
  await cp.installCrds([crd('Plum', 'plums', [column])]);
  const current = await cp.kubeconfig.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition(
    { name: 'plums.cp-test.kopf.dev' }
  );
  assert.deepEqual(current.spec.versions[0].additionalPrinterColumns?.map((c) => ({ ...c })), [column]);
});

test('anything but a CRD is refused before anything is sent', async () => {
  const file = join(dir, 'mixed.yaml');
  writeFileSync(
    file,
    `${JSON.stringify(crd('Quince', 'quinces'))}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n`,
  );
  await assert.rejects(cp.installCrds([file]), /expected a CustomResourceDefinition, got ConfigMap/);
  const list = await cp.kubeconfig.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
  assert.ok(!list.items.some((item) => item.metadata?.name === 'quinces.cp-test.kopf.dev'));
});
