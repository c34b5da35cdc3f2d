/**
 * `kopf demo` (`npm start`): the local control plane, shown serving, then stopped cleanly.
 * It will grow into running an example operator against it.
 */
import { parseArgs } from 'node:util';
import { CoreV1Api, VersionApi } from '@kubernetes/client-node';
import { startControlPlane } from '../testing/controlplane/controlplane.ts';
import { formatDuration } from '../testing/controlplane/text.ts';

const HELP = `Usage: kopf demo

Starts the local control plane (building its binaries first if needed), shows it serving
(its version, namespaces and kubeconfig), and stops it.

Options:
  -h, --help   This help.
`;

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const started = Date.now();
  console.log('Starting the local control plane (etcd + kube-apiserver)…');
  // Not `await using`: the package supports Node 22, which lacks it.
  const cp = await startControlPlane();
  try {
    console.log(`Ready in ${formatDuration(Date.now() - started)} at ${cp.server}`);
    console.log(`  kubeconfig:  ${cp.kubeconfigPath}`);
    const version = await cp.kubeconfig.makeApiClient(VersionApi).getCode();
    console.log(`  version:     ${version.gitVersion} (${version.platform}, ${version.goVersion})`);
    const namespaces = await cp.kubeconfig.makeApiClient(CoreV1Api).listNamespace();
    console.log(`  namespaces:  ${namespaces.items.map((ns) => ns.metadata?.name).join(', ')}`);
    console.log('Stopping…');
  } finally {
    await cp.stop();
  }
  console.log('Stopped; nothing left behind.');
  return 0;
}
