/**
 * `kopf control-plane`: a local kube-apiserver + etcd for development, serving until Ctrl-C;
 * `--build-only` just makes sure the binaries exist (what `npm test` does before the tests).
 */
import { copyFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBinaries, lookUpBinaries } from '../testing/controlplane/binaries.ts';
import { formatDuration } from '../testing/controlplane/text.ts';
import { ETCD_VERSION, KUBERNETES_VERSION } from '../testing/controlplane/versions.ts';
import { readManifests } from './dev-manifests.ts';

const HELP = `Usage: kopf control-plane [options]

Starts a local Kubernetes control plane on loopback: etcd v${ETCD_VERSION} and kube-apiserver
v${KUBERNETES_VERSION}, an admin user in system:masters, no controllers (no garbage collection, no pods).
Prints the KUBECONFIG to use, serves until Ctrl-C, then stops both and removes their state.

The binaries come from TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD / TEST_ASSET_KUBECTL, else
$KUBEBUILDER_ASSETS, else the cache (~/.cache/kopf/control-plane/, or under $XDG_CACHE_HOME); if they
are not there, envtest's prebuilt binaries are downloaded into the cache (checksummed; another index:
KOPF_ENVTEST_INDEX=URL, none: =off), else they are built there from the Go module proxy (needs \`go\`,
minutes, once).

Options:
      --build-only          Only find, download or build the binaries, print where they are, and exit.
      --kubeconfig PATH     Also write the kubeconfig to PATH (left in place on exit).
      --crd PATH            Install the CRDs once ready: a YAML file, or a folder of them (.yaml, .yml,
                            .json); repeatable.
      --apiserver-arg FLAG  An extra kube-apiserver flag, e.g. --apiserver-arg=--watch-cache=false;
                            repeatable.
      --log-dir DIR         Keep etcd's and kube-apiserver's logs in DIR.
  -v, --verbosity N         kube-apiserver's log verbosity.
  -h, --help                This help.
`;

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'build-only': { type: 'boolean' },
      kubeconfig: { type: 'string' },
      crd: { type: 'string', multiple: true },
      'apiserver-arg': { type: 'string', multiple: true },
      'log-dir': { type: 'string' },
      verbosity: { type: 'string', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values['build-only']) return buildOnly();
  const verbosity = values.verbosity === undefined ? undefined : Number(values.verbosity);
  if (verbosity !== undefined && !Number.isInteger(verbosity))
    throw new Error(`--verbosity wants an integer, got ${values.verbosity}`);
  // Read before anything starts: a wrong path or a file that is not a CRD is said at once.
  const manifests = readManifests(values.crd ?? [], []);
  if (typeof manifests === 'string') {
    process.stderr.write(`kopf control-plane: ${manifests}\n`);
    return 2;
  }
  return serve({
    kubeconfig: values.kubeconfig,
    crds: manifests.crds,
    apiServerArgs: values['apiserver-arg'] ?? [],
    logDir: values['log-dir'],
    verbosity,
  });
}

async function buildOnly(): Promise<number> {
  const started = Date.now();
  const binaries = await ensureBinaries({ requireKubectl: true });
  const { sources } = lookUpBinaries();
  const rows: [string, string | null, string | undefined][] = [
    ['kube-apiserver', binaries.apiServer, sources['kube-apiserver']],
    ['etcd', binaries.etcd, sources.etcd],
    ['kubectl', binaries.kubectl, sources.kubectl],
  ];
  for (const [name, path, source] of rows)
    console.log(`${name.padEnd(14)} ${path ?? '(none)'}${source ? `  [${source}]` : ''}`);
  console.log(`control-plane binaries ready (${formatDuration(Date.now() - started)})`);
  return 0;
}

interface ServeOptions {
  kubeconfig: string | undefined;
  crds: readonly string[];
  apiServerArgs: string[];
  logDir: string | undefined;
  verbosity: number | undefined;
}

async function serve(options: ServeOptions): Promise<number> {
  const { startControlPlane } = await import('../testing/controlplane/controlplane.ts');
  const started = Date.now();
  const cp = await startControlPlane({
    apiServerArgs: options.apiServerArgs,
    logDir: options.logDir && resolve(options.logDir),
    verbosity: options.verbosity,
  });
  // Registered first thing: a Ctrl-C during CRD installation must still stop the control plane.
  const interrupted = new Promise<string>((done) => {
    process.once('SIGINT', () => done('SIGINT'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    if (options.crds.length) await cp.installCrds(options.crds);
    if (options.kubeconfig) copyFileSync(cp.kubeconfigPath, options.kubeconfig);
    console.error(
      `Control plane ready in ${formatDuration(Date.now() - started)}: ${cp.server} (Kubernetes ` +
        `v${KUBERNETES_VERSION}, etcd v${ETCD_VERSION})`
    );
    console.log(`export KUBECONFIG=${options.kubeconfig ? resolve(options.kubeconfig) : cp.kubeconfigPath}`);
    console.error(`Logs: ${cp.logs.apiServer}, ${cp.logs.etcd}\nPress Ctrl-C to stop.`);
    const outcome = await Promise.race([interrupted, cp.crash]);
    if (typeof outcome !== 'string') return 1;
    console.error(`\n${outcome}: stopping…`);
  } finally {
    clearInterval(keepAlive);
    // A crash was reported as it happened (by the harness); say anything else that goes wrong now.
    await cp.stop().catch((error: unknown) => {
      if (error !== cp.crashError) console.error(error instanceof Error ? error.message : error);
    });
  }
  console.error('Stopped; state removed.');
  return 0;
}
