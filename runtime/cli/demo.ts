/**
 * `kopf demo` (`npm start`): the product in one minute. On an embedded local control plane it
 * installs a CRD, runs an operator from a file, creates an object, shows what the handlers did
 * (their log lines, the object's status and Kopf's annotations), deletes the object, and stops
 * everything cleanly.
 */
import { parseArgs } from 'node:util';
import { startControlPlane } from '../testing/controlplane/controlplane.ts';
import { formatDuration } from '../testing/controlplane/text.ts';
import { KubeClient, deleteObject, getObject, listObjects } from '../kube/index.ts';
import { INFO, LogConfig, captureLogs } from '../logging/index.ts';
import { defaultSettings } from '../config/defaults.ts';
import { operator } from '../operator/operator.ts';
import * as builtins from '../structs/builtins.ts';
import type { KubeObject } from '../structs/resources.ts';
import { createSample, readManifests } from './dev-manifests.ts';
import { loadOperator } from './run.ts';

const HELP = `Usage: kopf demo --crd FILE --object FILE OPERATOR_FILE…

Starts the local control plane (building its binaries first if needed), installs the CRD, runs
the operator from the given files, creates the object, shows what the handlers did, deletes the
object and stops everything. \`npm start\` runs it with the 01-minimal example.

Options:
  --crd PATH      CustomResourceDefinition(s) to install: YAML files, or folders of them.
  --object FILE   The object to create (YAML; namespace \`default\` unless it says otherwise).
  -h, --help      This help.
`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, strict: true, allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      crd: { type: 'string', multiple: true },
      object: { type: 'string' },
    },
  });
  if (values.help) { process.stdout.write(HELP); return 0; }
  if (!values.crd?.length || !values.object || !positionals.length) {
    process.stderr.write(`kopf demo: --crd, --object and at least one operator file are required.\n\n${HELP}`);
    return 2;
  }
  // Read and loaded before anything starts: what cannot be used is said at once, as kopf dev says it.
  const manifests = readManifests(values.crd, [values.object]);
  if (typeof manifests === 'string') {
    process.stderr.write(`kopf demo: ${manifests}\n`);
    return 2;
  }
  if (!(await loadOperator('demo', positionals))) return 1;
  const object = manifests.samples[0]!;
  step('Starting the local control plane (etcd + kube-apiserver)…');
  const started = Date.now();
  const cp = await startControlPlane();
  const client = KubeClient.fromKubeConfig(cp.kubeconfig);
  const capture = captureLogs();
  try {
    step(`Serving at ${cp.server} after ${formatDuration(Date.now() - started)}; kubeconfig: ${cp.kubeconfigPath}`);
    await cp.installCrds(manifests.crds);
    step(`Installed the CRDs of ${values.crd.join(', ')}.`);

    const op = operator({
      kubeconfig: cp.kubeconfig, clusterwide: true,
      settings: defaultSettings({ posting: { enabled: false } }),
      // Everything is captured (to follow the operator's progress); info and up is shown.
      logs: new LogConfig(
        {
          verbosity: 'verbose',
          format: 'full',
          sinks: [capture.sink, (record, render) => { if (record.level >= INFO) out(render()); }],
        }
      ),
    });
    await op.ready;
    const name = object.metadata!.name!;
    step(`The operator from ${positionals.join(', ')} is running. Creating ${object.kind} ${name}…`);
    try {
      const { resource, namespace } = await createSample(client, object);
      const ref = { ...(namespace === null ? {} : { namespace }), name };
      await capture.waitFor(/ is processed: /, { timeout: 60 });
      // its patch has landed
      await capture.waitFor('Handling cycle is finished, waiting for new changes.', { timeout: 60 });
      const body = await getObject(client, resource, ref);
      show(body);
      await showChildren(client, body);
      step(`Deleting ${object.kind} ${name}…`);
      await deleteObject(client, resource, ref);
      await capture.waitFor('Deleted, really deleted, and we are notified.', { timeout: 60 });
      step('Deleted, and the operator has let it go.');
    } finally {
      await op.stop();
    }
    step('The operator has stopped.');
  } finally {
    client.close();
    await cp.stop();
  }
  step('The control plane has stopped; nothing is left behind.');
  return 0;
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function step(text: string): void {
  out(`\n==> ${text}`);
}

/** ConfigMaps that name the object as their owner (what the scaffold's handlers make). */
async function showChildren(client: KubeClient, owner: KubeObject): Promise<void> {
  const { items } = await listObjects(client, builtins.ConfigMaps, {});
  const owned = items.filter(
    (child) => child.metadata?.ownerReferences?.some((ref) => ref.uid === owner.metadata?.uid)
  );
  for (const child of owned) {
    out(`  owns ConfigMap ${child.metadata?.namespace}/${child.metadata?.name}: ${JSON.stringify(child.data ?? {})}`);
  }
}

function show(body: KubeObject): void {
  const annotations = Object.entries(body.metadata?.annotations ?? {}).filter(
    ([k]) => k.startsWith('kopf.zalando.org/')
  );
  step('What the handlers did, as stored on the object:');
  out(`  status:      ${JSON.stringify(body.status ?? {})}`);
  out(`  finalizers:  ${JSON.stringify(body.metadata?.finalizers ?? [])}`);
  for (const [key, value] of annotations) out(`  ${key}: ${value.trimEnd()}`);
}
