/**
 * The scaffold's NetworkPolicy is one the API server accepts: created (dry run) as rendered on a
 * local control plane, in the operator's namespace; the same policy made invalid is refused, so
 * the dry run does validate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { DEFAULTS, scaffold } from '../../../create/index.ts';
import { createObject, isInvalid } from '../../../runtime/kube/index.ts';
import { NetworkPolicies, type NetworkPolicy } from '../../../runtime/structs/builtins.ts';
import { useCluster } from '../use-cluster.ts';

const cluster = useCluster({ namespace: 'my-op' });

test('the API server accepts deploy/network-policy.yaml as the scaffold renders it', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'kopf-create-')), 'my-op');
  t.after(() => rmSync(resolve(dir, '..'), { recursive: true, force: true }));
  await scaffold({ ...DEFAULTS, dir, name: 'my-op', install: false });
  const policy = parse(readFileSync(join(dir, 'deploy', 'network-policy.yaml'), 'utf8')) as NetworkPolicy;
  const created = await createObject(cluster.client, NetworkPolicies, policy, { dryRun: true });
  assert.equal(created.metadata?.namespace, 'my-op');
  assert.deepEqual(created.spec?.ingress, policy.spec?.ingress);

  const invalid = structuredClone(policy);
  invalid.spec!.ingress![0]!.ports![0]!.port = 70_000;
  await assert.rejects(
    createObject(cluster.client, NetworkPolicies, invalid, { dryRun: true }),
    (error: unknown) => isInvalid(error),
  );
});
