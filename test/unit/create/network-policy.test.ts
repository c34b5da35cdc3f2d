/**
 * The scaffold's NetworkPolicy as rendered: it selects the operator's pods by the Deployment's own
 * labels, and lets in only the monitoring namespace, on the port that serves /healthz and /metrics
 * (the kubelet's probe comes from the pod's node, which NetworkPolicy always lets in).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULTS, scaffold, type Scope } from '../../../create/index.ts';

interface Policy {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: { from: Record<string, unknown>[]; ports: { protocol: string; port: number }[] }[];
  };
}

interface Deployment {
  metadata: { namespace: string };
  spec: { template: {
    metadata: { labels: Record<string, string> };
    spec: { containers: { ports: { name: string; containerPort: number }[] }[] };
  } };
}

for (const scope of ['Namespaced', 'Cluster'] as Scope[]) {
  test(`${scope}: only the monitoring namespace reaches the operator's port 8080, in the operator's namespace`, async (
    t,
  ) => {
    const dir = join(mkdtempSync(join(tmpdir(), 'kopf-create-')), 'my-op');
    t.after(() => rmSync(resolve(dir, '..'), { recursive: true, force: true }));
    await scaffold({ ...DEFAULTS, dir, name: 'my-op', scope, install: false });
    const read = (file: string): string => readFileSync(join(dir, 'deploy', file), 'utf8');
    const documents = parseAllDocuments(read('network-policy.yaml'));
    assert.equal(documents.length, 1);
    const policy = documents[0]!.toJS() as Policy;
    const deployment = parse(read('deployment.yaml')) as Deployment;
    assert.equal(policy.apiVersion, 'networking.k8s.io/v1');
    assert.equal(policy.kind, 'NetworkPolicy');
    const labels = { 'app.kubernetes.io/name': 'my-op' };
    assert.deepEqual(policy.metadata, { name: 'my-op', namespace: deployment.metadata.namespace, labels });
    assert.deepEqual(policy.spec.podSelector.matchLabels, deployment.spec.template.metadata.labels);
    assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
    const [http] = deployment.spec.template.spec.containers[0]!.ports;
    assert.deepEqual(policy.spec.ingress, [{
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      ports: [{ protocol: 'TCP', port: http!.containerPort }],
    }]);
    assert.match(read('network-policy.yaml'), /^# Prometheus in another namespace: change `monitoring` below/m);
  });
}
