/**
 * A local Kubernetes control plane for tests and development: etcd and kube-apiserver on loopback,
 * started the way controller-runtime's envtest starts them, with a kubeconfig for an admin user.
 * There is no controller-manager or scheduler: no garbage collection, namespaces never finish
 * terminating, no service-account tokens, no pods scheduled.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBinaries, type ControlPlaneBinaries } from './binaries.ts';
import type { ProgressReporter } from './progress.ts';
import { issueCertificate, type CertificateAuthority } from '../../certificates/x509.ts';
import { register, unregister } from './cleanup.ts';
import { installCrds, type CrdSource } from './crd-installation.ts';
import type { ApiCredentials } from './requests.ts';
import { kubeconfigText } from './admin-kubeconfig.ts';
import { prepareLayout, writePki, type Layout, type PkiFiles } from './layout.ts';
import { reservePorts, type PortReservation } from './ports.ts';
import { SupervisedProcess } from './processes.ts';
import { ControlPlaneStartError, waitApiServerReady, waitEtcdReady } from './readiness.ts';

export { ControlPlaneStartError } from './readiness.ts';

export interface ControlPlaneOptions {
  /** Extra kube-apiserver flags, after the defaults (for single-valued flags the last one wins). */
  apiServerArgs?: readonly string[];
  /** Extra etcd flags, after the defaults. */
  etcdArgs?: readonly string[];
  /** kube-apiserver's log verbosity (`--v`); its default when unset. */
  verbosity?: number;
  /** Keep the processes' logs in this folder (they are removed with the state otherwise). */
  logDir?: string;
  /** How long start and restarts may take; default 60 s (2 busy cores can be slow). */
  startTimeoutMs?: number;
  /**
   * Explicit binaries; anything missing is looked up (TEST_ASSET_*, KUBEBUILDER_ASSETS, cache), downloaded or built.
   */
  binaries?: Partial<ControlPlaneBinaries>;
  /** Progress, if the binaries must be downloaded or built; standard error by default. */
  onProgress?: ProgressReporter;
  /** The environment for lookups and the cache location; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

export interface RestartOptions {
  /** How to end the running apiserver: SIGTERM (graceful, the default) or SIGKILL (a crash). */
  signal?: 'SIGTERM' | 'SIGKILL';
  /** Runs while the apiserver is down, e.g. to check how clients behave without it. */
  whileDown?: () => void | Promise<void>;
}

export type ControlPlaneProcessName = 'etcd' | 'kube-apiserver';

/** An unexpected exit of etcd or kube-apiserver, with the end of its log. */
export class ControlPlaneCrashError extends Error {
  override name = 'ControlPlaneCrashError';
  readonly process: ControlPlaneProcessName;
  readonly logPath: string;
  readonly logTail: string;

  constructor(process: ControlPlaneProcessName, description: string, logPath: string, logTail: string) {
    super(`${description} unexpectedly. Last lines of ${logPath}:\n${logTail}`);
    this.process = process;
    this.logPath = logPath;
    this.logTail = logTail;
  }
}

const STOP_GRACE_MS = 5000;
const MAX_START_ATTEMPTS = 3;

export class ControlPlane implements AsyncDisposable {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** `http://127.0.0.1:<port>`: etcd's client URL, for tests that look at storage directly. */
  readonly etcdUrl: string;
  /** A kubeconfig file for the admin user (in `system:masters`), removed on stop. */
  readonly kubeconfigPath: string;
  /** PEM credentials of the admin user, for raw HTTPS clients. */
  readonly credentials: ApiCredentials;
  readonly binaries: ControlPlaneBinaries;
  /** The folder holding all state (etcd data, certificates, kubeconfig; logs unless `logDir`). */
  readonly dir: string;
  readonly logs: { readonly etcd: string; readonly apiServer: string };

  #etcd: SupervisedProcess;
  #apiServer: SupervisedProcess;
  #apiServerArgs: string[];
  #etcdArgs: string[];
  #ports: PortReservation[];
  #clientCa: CertificateAuthority;
  #startTimeoutMs: number;
  #crashError: ControlPlaneCrashError | null = null;
  #crash: Promise<ControlPlaneCrashError>;
  #reportCrash!: (error: ControlPlaneCrashError) => void;
  #crashAwaited = false;
  #expectedExits = new Set<SupervisedProcess>();
  #stopping: Promise<void> | null = null;

  constructor(init: {
    layout: Layout; credentials: ApiCredentials; clientCa: CertificateAuthority; etcdUrl: string;
    binaries: ControlPlaneBinaries; etcd: SupervisedProcess;
    apiServer: SupervisedProcess; apiServerArgs: string[]; etcdArgs: string[]; ports: PortReservation[];
    startTimeoutMs: number;
  }) {
    this.server = init.credentials.server;
    this.etcdUrl = init.etcdUrl;
    this.kubeconfigPath = init.layout.kubeconfigPath;
    this.credentials = init.credentials;
    this.binaries = init.binaries;
    this.dir = init.layout.dir;
    this.logs = { etcd: init.etcd.logPath, apiServer: init.apiServer.logPath };
    this.#etcd = init.etcd;
    this.#apiServer = init.apiServer;
    this.#apiServerArgs = init.apiServerArgs;
    this.#etcdArgs = init.etcdArgs;
    this.#ports = init.ports;
    this.#clientCa = init.clientCa;
    this.#startTimeoutMs = init.startTimeoutMs;
    this.#crash = new Promise((resolve) => {
      this.#reportCrash = resolve;
    });
    this.#watch(this.#etcd);
    this.#watch(this.#apiServer);
    register(this);
  }

  /** A fresh client-node KubeConfig for the admin user (a new object each time: callers may mutate it). */
  get kubeconfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromString(kubeconfigText(this.credentials));
    return config;
  }

  /**
   * Resolves if etcd or kube-apiserver exits while it should be running; never rejects. Awaiting
   * it keeps the event loop alive (a running control plane alone does not).
   */
  get crash(): Promise<ControlPlaneCrashError> {
    this.#crashAwaited = true;
    this.#etcd.ref();
    this.#apiServer.ref();
    return this.#crash;
  }

  /**
   * A KubeConfig for another user, authenticated by a client certificate: `user` is the name RBAC
   * sees, `groups` its groups. Outside `system:masters`, RBAC and API Priority & Fairness apply.
   */
  kubeconfigFor(user: string, groups: readonly string[] = []): KubeConfig {
    const pair = issueCertificate(this.#clientCa, { commonName: user, organizations: [...groups], usage: 'client' });
    const config = new KubeConfig();
    config.loadFromString(kubeconfigText({ ...this.credentials, cert: pair.cert, key: pair.key }, user));
    return config;
  }

  /** The crash so far, if any. */
  get crashError(): ControlPlaneCrashError | null {
    return this.#crashError;
  }

  get etcdPid(): number {
    return this.#etcd.pid;
  }

  get apiServerPid(): number {
    return this.#apiServer.pid;
  }

  #watch(child: SupervisedProcess): void {
    if (this.#crashAwaited) child.ref();
    void child.exitedInBackground.then(() => {
      if (this.#expectedExits.has(child) || this.#crashError) return;
      const name = child === this.#etcd ? 'etcd' : 'kube-apiserver';
      this.#crashError = new ControlPlaneCrashError(name, child.describeExit(), child.logPath, child.logTail());
      // The harness's users are tests: say it where they look, not only through a promise.
      console.error(`kopf/testing: ${this.#crashError.message}`);
      this.#reportCrash(this.#crashError);
    });
  }

  #throwIfCrashed(): void {
    if (this.#crashError) throw this.#crashError;
    if (this.#stopping) throw new Error('the control plane is stopped');
  }

  /** Creates or replaces CRDs (YAML files, multi-document, or objects); resolves once they are served. */
  async installCrds(sources: readonly CrdSource[], options: { timeoutMs?: number } = {}): Promise<void> {
    this.#throwIfCrashed();
    await installCrds(this.credentials, sources, options.timeoutMs);
  }

  /** Stops kube-apiserver and starts it again on the same port with the same etcd data. */
  async restartApiServer(options: RestartOptions = {}): Promise<void> {
    this.#throwIfCrashed();
    const old = this.#apiServer;
    this.#expectedExits.add(old);
    await old.stop(STOP_GRACE_MS, options.signal ?? 'SIGTERM');
    await options.whileDown?.();
    this.#throwIfCrashed();
    this.#apiServer = spawnApiServer(this.binaries.apiServer, this.#apiServerArgs, old.logPath, this.dir);
    this.#watch(this.#apiServer);
    await waitApiServerReady(this.credentials, this.#apiServer, Date.now() + this.#startTimeoutMs);
  }

  /**
   * Stops etcd and starts it again on the same ports with the same data; kube-apiserver keeps
   * running (failing its storage requests meanwhile) and reconnects. Resolves once both are ready.
   */
  async restartEtcd(options: RestartOptions = {}): Promise<void> {
    this.#throwIfCrashed();
    const old = this.#etcd;
    this.#expectedExits.add(old);
    await old.stop(STOP_GRACE_MS, options.signal ?? 'SIGTERM');
    await options.whileDown?.();
    this.#throwIfCrashed();
    this.#etcd = spawnEtcd(this.binaries.etcd, this.#etcdArgs, old.logPath, this.dir);
    this.#watch(this.#etcd);
    const deadline = Date.now() + this.#startTimeoutMs;
    await waitEtcdReady(this.etcdUrl, this.#etcd, deadline);
    await waitApiServerReady(this.credentials, this.#apiServer, deadline);
  }

  /**
   * Ends kube-apiserver first (an apiserver whose etcd is gone can hang in its shutdown), then etcd,
   * and removes all state. Rejects with the crash error if either process had crashed meanwhile.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#expectedExits.add(this.#apiServer);
    this.#expectedExits.add(this.#etcd);
    try {
      await this.#apiServer.stop(STOP_GRACE_MS);
      await this.#etcd.stop(STOP_GRACE_MS);
    } finally {
      this.#removeState();
      unregister(this);
    }
    if (this.#crashError) throw this.#crashError;
  }

  killNow(): void {
    this.#expectedExits.add(this.#apiServer);
    this.#expectedExits.add(this.#etcd);
    this.#apiServer.killNow();
    this.#etcd.killNow();
    this.#removeState();
  }

  #removeState(): void {
    for (const port of this.#ports) port.release();
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const env = options.env ?? process.env;
  const given = options.binaries ?? {};
  const binaries: ControlPlaneBinaries = given.apiServer && given.etcd
    ? { apiServer: given.apiServer, etcd: given.etcd, kubectl: given.kubectl ?? null }
    : { ...(await ensureBinaries({ env, onProgress: options.onProgress })), ...given };
  let lastError: unknown;
  for (let attempt = 1; attempt <= MAX_START_ATTEMPTS; attempt++) {
    try {
      return await startOnce(binaries, options);
    } catch (error) {
      lastError = error;
      if (!(error instanceof ControlPlaneStartError) || !error.portTaken) throw error;
    }
  }
  throw lastError;
}

async function startOnce(binaries: ControlPlaneBinaries, options: ControlPlaneOptions): Promise<ControlPlane> {
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const layout = prepareLayout(options.logDir);
  const ports = await reservePorts(3, options.env ?? process.env);
  const [etcdClientPort, etcdPeerPort, apiServerPort] = ports.map((p) => p.port);
  const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
  const server = `https://127.0.0.1:${apiServerPort}`;
  const started: SupervisedProcess[] = [];
  try {
    const { credentials, clientCa, files } = writePki(layout, server);
    const etcdArgs = [
      ...etcdArguments(layout, etcdUrl, `http://127.0.0.1:${etcdPeerPort}`),
      ...(options.etcdArgs ?? [])
    ];
    const etcd = spawnEtcd(binaries.etcd, etcdArgs, join(layout.logDir, 'etcd.log'), layout.dir);
    started.push(etcd);
    await waitEtcdReady(etcdUrl, etcd, deadline);

    const apiServerArgs = [
      ...apiServerArguments(layout, files, etcdUrl, apiServerPort),
      ...(options.verbosity === undefined ? [] : [`--v=${options.verbosity}`]),
      ...(options.apiServerArgs ?? []),
    ];
    const apiServer = spawnApiServer(
      binaries.apiServer,
      apiServerArgs,
      join(layout.logDir, 'kube-apiserver.log'),
      layout.dir,
    );
    started.push(apiServer);
    await waitApiServerReady(credentials, apiServer, deadline);
    writeFileSync(layout.kubeconfigPath, kubeconfigText(credentials), { mode: 0o600 });
    return new ControlPlane({
      layout, credentials, clientCa, etcdUrl, binaries, etcd, apiServer, apiServerArgs, etcdArgs, ports,
      startTimeoutMs: timeoutMs,
    });
  } catch (error) {
    for (const child of started.reverse()) await child.stop(STOP_GRACE_MS);
    for (const port of ports) port.release();
    rmSync(layout.dir, { recursive: true, force: true, maxRetries: 3 });
    throw error;
  }
}

/** A single-member etcd on loopback; without fsync, as its data is thrown away anyway. */
function etcdArguments(layout: Layout, clientUrl: string, peerUrl: string): string[] {
  return [
    `--data-dir=${layout.etcdData}`,
    `--listen-client-urls=${clientUrl}`, `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`, `--initial-advertise-peer-urls=${peerUrl}`, `--initial-cluster=default=${peerUrl}`,
    '--unsafe-no-fsync=true',
  ];
}

/** envtest's flags (controller-runtime's `pkg/internal/testing/controlplane`), plus an advertise address. */
function apiServerArguments(layout: Layout, files: PkiFiles, etcdUrl: string, port: number): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    `--cert-dir=${layout.pki}`,
    `--tls-cert-file=${files.servingCert}`, `--tls-private-key-file=${files.servingKey}`,
    `--secure-port=${port}`, '--bind-address=127.0.0.1',
    // Loopback is not a valid endpoint address; with no endpoint reconciler nothing tries to write it.
    '--advertise-address=127.0.0.1', '--endpoint-reconciler-type=none',
    `--client-ca-file=${files.clientCa}`,
    '--authorization-mode=RBAC',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    // No controller-manager creates the `default` service accounts this admission plugin insists on.
    '--disable-admission-plugins=ServiceAccount',
    `--service-account-issuer=https://127.0.0.1:${port}/`,
    `--service-account-key-file=${files.saPublic}`,
    `--service-account-signing-key-file=${files.saPrivate}`,
  ];
}

function spawnEtcd(command: string, args: string[], logPath: string, stateDir: string): SupervisedProcess {
  return new SupervisedProcess({ name: 'etcd', command, args, logPath, orphanCleanupDir: stateDir });
}

function spawnApiServer(command: string, args: string[], logPath: string, stateDir: string): SupervisedProcess {
  return new SupervisedProcess({ name: 'kube-apiserver', command, args, logPath, orphanCleanupDir: stateDir });
}
