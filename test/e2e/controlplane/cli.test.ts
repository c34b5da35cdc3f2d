import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { ApiextensionsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { isRunning, processesMentioning } from '../../unit/testing/controlplane/host.ts';

const MAIN = fileURLToPath(new URL('../../../runtime/cli/main.ts', import.meta.url));
const EXAMPLE_CRD = fileURLToPath(new URL('../../../examples/crd.yaml', import.meta.url));

/** A second CRD, to see that every file of a folder is installed. */
const GADGETS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget }
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;

function kopf(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('kopf lists its commands; unknown ones are an error', () => {
  const help = kopf('--help');
  assert.equal(help.status, 0);
  for (const name of ['run', 'control-plane', 'demo']) assert.match(help.stdout, new RegExp(`^  ${name} `, 'm'));
  const unknown = kopf('frobnicate');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
});

test('kopf control-plane --help and --build-only', () => {
  const help = kopf('control-plane', '--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--build-only/);
  const build = kopf('control-plane', '--build-only');
  assert.equal(build.status, 0, build.stderr);
  for (const name of ['kube-apiserver', 'etcd', 'kubectl']) {
    const path = new RegExp(`^${name}\\s+(\\S+)`, 'm').exec(build.stdout)?.[1];
    assert.ok(path && existsSync(path), `${name}: ${build.stdout}`);
  }
});

test('kopf control-plane installs the CRDs of a folder, serves until Ctrl-C, then stops and cleans up', async (t) => {
  const crds = mkdtempSync(join(tmpdir(), 'kopf-crds-'));
  t.after(() => rmSync(crds, { recursive: true, force: true }));
  copyFileSync(EXAMPLE_CRD, join(crds, 'kopfexamples.yaml'));
  writeFileSync(join(crds, 'gadgets.yml'), GADGETS);
  writeFileSync(join(crds, 'README.md'), 'Not a CRD.\n');
  const child = spawn(process.execPath, [MAIN, 'control-plane', '--crd', crds], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout });
  const early = exited.then(([code]) => { throw new Error(`kopf control-plane exited with ${code}: ${stderr}`); });
  const [line] = (await Promise.race([once(lines, 'line'), early])) as [string];
  const path = /^export KUBECONFIG=(.+)$/.exec(line)?.[1];
  assert.ok(path, line);

  const config = new KubeConfig();
  config.loadFromFile(path);
  const namespaces = await config.makeApiClient(CoreV1Api).listNamespace();
  assert.ok(namespaces.items.some((ns) => ns.metadata?.name === 'default'));
  const installed = await config.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
  assert.deepEqual(
    installed.items.map((crd) => crd.metadata?.name).sort(),
    ['gadgets.example.com', 'kopfexamples.kopf.dev'],
  );
  const dir = path.replace(/\/kubeconfig\.yaml$/, '');
  const pids = processesMentioning(dir);
  assert.ok(pids.length >= 2, 'kube-apiserver and etcd run');

  child.kill('SIGINT');
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, stderr);
  assert.match(stderr, /Stopped; state removed\./);
  assert.ok(!pids.some(isRunning));
  assert.ok(!existsSync(dir));
});

// `kopf demo` (npm start) runs an example operator now: see test/e2e/engine/demo.test.ts.
