/**
 * `kopf dev` (a new project's `npm start`): the operator for development, with or without a cluster.
 *
 * When the current kubeconfig context answers, it is `kopf run --dev` there (the CRDs are the user's to
 * apply: nothing is written to a real cluster unasked). When there is no kubeconfig, or its server
 * does not answer, a local control plane is started for the session: the CRDs installed, the
 * sample objects created, the operator run in this process, and the kubeconfig printed for
 * `kubectl`. Ctrl-C stops the operator and the control plane, which removes all its state.
 */
import { parseArgs } from 'node:util';
import { KubeClient } from '../kube/index.ts';
import { LogConfig, streamSink } from '../logging/index.ts';
import { STOP_ANNOUNCED, operator } from '../operator/operator.ts';
import { parseEndpoint } from '../servers/endpoints.ts';
import { thrownText } from '../structs/errors.ts';
import { startControlPlane } from '../testing/controlplane/controlplane.ts';
import type { ControlPlane } from '../testing/controlplane/controlplane.ts';
import { formatDuration } from '../testing/controlplane/text.ts';
import { createSample, readManifests, type LocalManifests } from './dev-manifests.ts';
import { loadOperator, main as run } from './run.ts';

const HELP = `Usage: kopf dev [options] OPERATOR_FILE…

Runs the operator for development. When the current kubeconfig context answers, this is
\`kopf run --dev\` there, which pauses the deployed operators that peer with it (apply the CRDs
yourself: kopf dev does not change a real cluster). When there
is no kubeconfig, or its server does not answer, it starts a local control plane (etcd +
kube-apiserver), installs the CRDs, creates the sample objects, runs the operator there, and
prints how to point kubectl at it. Ctrl-C stops everything; the local control plane leaves
nothing behind.

Options:
      --crd PATH          CRDs for the local control plane: YAML files or folders; repeatable.
      --object FILE       Sample objects to create on the local control plane; repeatable.
      --local             Use a local control plane even when a cluster answers.
  -n, --namespace NS      Serve this namespace; repeatable (default: the whole cluster).
      --metrics URL       Serve the operator's metrics for Prometheus, as kopf run --metrics
                          does: e.g. http://127.0.0.1:8080/metrics.
  -v, --verbose           Debug messages too.
  -h, --help              This help.
`;

/** Seconds the current context's server has to answer before the local control plane is used instead. */
const REACH_TIMEOUT = 5;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, strict: true, allowPositionals: true,
    options: {
      crd: { type: 'string', multiple: true }, object: { type: 'string', multiple: true }, local: { type: 'boolean' },
      namespace: { type: 'string', short: 'n', multiple: true }, verbose: { type: 'boolean', short: 'v' },
      metrics: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { process.stdout.write(HELP); return 0; }
  if (!positionals.length) {
    process.stderr.write(`kopf dev: at least one operator file is required.\n\n${HELP}`);
    return 2;
  }
  const metrics = values.metrics;
  if (metrics !== undefined) {
    try {
      parseEndpoint(metrics, 'metrics endpoint');
    } catch (error) {
      process.stderr.write(`kopf dev: --metrics: ${thrownText(error)}\n`);
      return 2;
    }
  }
  const namespaces = values.namespace ?? [];
  const reached = values.local ? 'asked for (--local)' : await reachCluster();
  if (typeof reached !== 'string') {
    const scope = namespaces.length ? namespaces.flatMap((ns) => ['-n', ns]) : ['-A'];
    // A developer's operator: it pauses the deployed ones that peer with it, until it exits. Said
    // first, with the cluster's address, since nothing else in its output tells one cluster from another.
    note(`The current kubeconfig context answers: Kubernetes ${reached.version} at ${reached.server}.\n`
      + `    The operator runs there as \`kopf run --dev ${scope.join(' ')}\`: the deployed operators that peer `
      + 'with it pause until it exits (Ctrl-C).');
    const extra = [...(values.verbose ? ['--verbose'] : []), ...(metrics === undefined ? [] : ['--metrics', metrics])];
    return run([...scope, '--dev', ...extra, ...positionals]);
  }
  // Read before anything starts: a wrong path, or a file that is not what the option wants, is said at once.
  const manifests = readManifests(values.crd ?? [], values.object ?? []);
  if (typeof manifests === 'string') {
    process.stderr.write(`kopf dev: ${manifests}\n`);
    return 2;
  }
  // Loaded before anything starts too: a file that cannot be loaded is said at once, as by kopf run.
  if (!(await loadOperator('dev', positionals))) return 1;
  note(`A local control plane: ${reached}. Starting etcd and kube-apiserver…`);
  return runLocally({ ...manifests, namespaces, metrics, verbose: values.verbose ?? false });
}

/** The current context's server and its version when it answers; else why it is not used, for the user. */
async function reachCluster(): Promise<{ server: string; version: string } | string> {
  const client = KubeClient.fromDefault({ requestTimeout: REACH_TIMEOUT, errorBackoffs: [] });
  try {
    const { gitVersion } = await client.request<{ gitVersion?: string }>('GET', '/version', { retries: 0 });
    return { server: await client.serverUrl(), version: gitVersion ?? '(version unknown)' };
  } catch (error) {
    return `the current kubeconfig context cannot be used (${thrownText(error).split('\n')[0]})`;
  } finally {
    client.close();
  }
}

interface LocalRun extends LocalManifests {
  namespaces: readonly string[];
  metrics: string | undefined;
  verbose: boolean;
}

async function runLocally(options: LocalRun): Promise<number> {
  const samples = options.samples;
  const started = Date.now();
  const cp = await startControlPlane();
  // Registered first thing: a Ctrl-C during the set-up must still stop the control plane. Kept for
  // the whole run: under `npm start`, a Ctrl-C reaches this process twice (from the terminal, and
  // forwarded by npm), and the second must not end it before the control plane is gone.
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const interrupted = new Promise<string>((done) => { onSignal = (signal) => done(signal); });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const client = KubeClient.fromKubeConfig(cp.kubeconfig);
  const stop = new AbortController();
  let code = 0;
  try {
    note(`Serving at ${cp.server} after ${formatDuration(Date.now() - started)}.`);
    if (options.crds.length) await cp.installCrds(options.crds);
    const op = operator({
      kubeconfig: cp.kubeconfig, namespaces: options.namespaces, clusterwide: !options.namespaces.length,
      logs: new LogConfig({ verbosity: options.verbose ? 'verbose' : 'normal', sinks: [streamSink(process.stdout)] }),
      signal: stop.signal, metrics: options.metrics,
    });
    const stopped = op.done.then(() => 'stopped');
    const outcome = await Promise.race([op.ready.then(() => 'ready'), interrupted, cp.crash, stopped]);
    if (outcome === 'ready') {
      for (const object of samples) await createSample(client, object);
      printHowTo(cp, samples.map((o) => o.kind ?? '').filter(Boolean), options.metrics);
    }
    const end = outcome === 'ready' ? await Promise.race([interrupted, cp.crash, stopped]) : outcome;
    if (typeof end === 'string' && end.startsWith('SIG')) note(`${end}: stopping the operator and the control plane.`);
    else if (typeof end !== 'string') code = 1;
    stop.abort(STOP_ANNOUNCED);
    await op.done.catch((error: unknown) => {
      note(`The operator has failed: ${thrownText(error)}`);
      code = 1;
    });
  } finally {
    client.close();
    await cp.stop().catch((error: unknown) => {
      if (error !== cp.crashError) note(thrownText(error));
    });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  note('Stopped; the local control plane is gone with all its state.');
  return code;
}

function printHowTo(cp: ControlPlane, kinds: readonly string[], metrics: string | undefined): void {
  const kubectl = cp.binaries.kubectl ?? 'kubectl';
  const lines = [
    'The operator is running on the local control plane. In another terminal:',
    `    export KUBECONFIG=${cp.kubeconfigPath}`,
    ...[...new Set(kinds)].map((kind) => `    ${kubectl} get ${kind.toLowerCase()} -A -o yaml`),
    ...(metrics === undefined ? [] : [`    curl ${metrics}`]),
    'Press Ctrl-C to stop.',
  ];
  note(lines.join('\n'));
}

function note(text: string): void {
  process.stdout.write(`\n==> ${text}\n`);
}
