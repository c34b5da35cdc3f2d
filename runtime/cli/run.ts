/**
 * `kopf run [files…]`: loads operator files (TypeScript, run directly by Node) and runs the
 * operator until SIGINT/SIGTERM, then stops it cleanly and exits 0.
 */
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { LogConfig, Logger, type LogFormat, type Verbosity } from '../logging/index.ts';
import { AuthorizationError, KubeConfigError, isOrWraps } from '../kube/index.ts';
import { defaultSettings } from '../config/defaults.ts';
import type { AdmissionSettings } from '../config/settings.ts';
import type { WebhookServerOptions } from '../webhooks/server.ts';
import { STOP_ANNOUNCED, operator } from '../operator/operator.ts';
import { guardProcess } from '../operator/guard.ts';
import { parseEndpoint } from '../servers/endpoints.ts';
import { thrownText } from '../structs/errors.ts';
import { compileCacheRefusal } from './compile-cache.ts';
import { clockOfParent } from '../testing/virtual-clock.ts';

const HELP = `Usage: kopf run [options] [files…]

Runs an operator: imports each file (TypeScript or JavaScript) in order, which registers its
handlers, then serves the resources those handlers name until SIGINT or SIGTERM.

Scope:
  -n, --namespace NS      Serve this namespace; repeatable; globs (*, ?) and !exclusions allowed.
  -A, --all-namespaces    Serve the whole cluster (the default when no --namespace is given).

Logging:
  -v, --verbose           Debug messages too.
  -d, --debug             Debug messages, and every API request with its status and time.
  -q, --quiet             Warnings and errors only.
      --log-format F      plain | full (default) | json.
      --log-prefix        Prefix object messages with [namespace/name] (default for text formats).
      --no-log-prefix     Do not.
      --log-refkey KEY    The JSON key of the object reference (default: object).

Peering (pausing while another operator of a higher priority serves the same resources; docs/peering.md):
      --standalone        No peering with other operators.
  -p, --priority N        This operator's priority among its peers (default 0).
  -P, --peering NAME      The peering object's name; makes peering mandatory (no object, no processing).
      --dev               Priority 666, for a developer's local operator.
  Without these, the peering object \`default\` is used if the peering CRDs exist.

Leader election (of several replicas, only the holder of a Lease processes; docs/peering.md):
      --leader-election[=NAME]         Elect on the Lease NAME (default: kopf-leader).
      --leader-election-namespace NS   The Lease's namespace (default: POD_NAMESPACE, else the
                                       credentials' namespace, else default).

Sharding (several active replicas split the objects between them; docs/peering.md, docs/scaling.md):
      --sharding RING                  Join the ring RING (a DNS label of at most 40 characters).
      --sharding-namespace NS          The ring's Leases' namespace (default: as --leader-election's).

Admission webhooks (for on.validate/on.mutate; docs/webhooks.md):
      --webhook-port N    Serve them on this port (default: a free one).
      --webhook-addr A    Listen on this address (default: loopback only; all interfaces with
                          --webhook-host or --webhook-service).
      --webhook-host H    The host name the API server is given (default: localhost).
      --webhook-path P    The URL path prefix of the webhooks.
      --webhook-cert F    The serving certificate (PEM), with --webhook-key F; else one is made at start.
      --webhook-service NS/NAME[:PORT]
                          The API server reaches them through this Service (port 443 by default).
      --webhook-managed NAME
                          Create and keep current the webhook configurations of this name.

Health:
  -L, --liveness URL      Serve a liveness endpoint, e.g. http://0.0.0.0:8080/healthz: the probe
                          handlers' results as JSON; 503 when the operator is not running or a
                          watch has been silent past its inactivity timeout.
      --metrics URL       Serve the operator's metrics in Prometheus's text format, e.g.
                          http://0.0.0.0:8080/metrics (docs/metrics.md); on the liveness
                          endpoint's server if it names the same host and port.

  -m, --module NAME       Import a module by name (after the files); repeatable.
  -h, --help              This help.
`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv);
  return run(values, positionals);
}

/** The Lease's name when `--leader-election` is given without one. */
const DEFAULT_LEASE = 'kopf-leader';

function parseOptions(argv: string[]) {
  // `--leader-election` takes its value only after `=`: alone, it means the default Lease.
  const args = argv.map((arg) => (arg === '--leader-election' ? `--leader-election=${DEFAULT_LEASE}` : arg));
  return parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      namespace: { type: 'string', short: 'n', multiple: true },
      'all-namespaces': { type: 'boolean', short: 'A' },
      verbose: { type: 'boolean', short: 'v' },
      debug: { type: 'boolean', short: 'd' },
      quiet: { type: 'boolean', short: 'q' },
      'log-format': { type: 'string' },
      'log-prefix': { type: 'boolean' },
      'no-log-prefix': { type: 'boolean' },
      'log-refkey': { type: 'string' },
      standalone: { type: 'boolean' },
      priority: { type: 'string', short: 'p' },
      peering: { type: 'string', short: 'P' },
      dev: { type: 'boolean' },
      liveness: { type: 'string', short: 'L' },
      metrics: { type: 'string' },
      'webhook-port': { type: 'string' },
      'webhook-addr': { type: 'string' },
      'webhook-host': { type: 'string' },
      'webhook-path': { type: 'string' },
      'webhook-cert': { type: 'string' },
      'webhook-key': { type: 'string' },
      'webhook-service': { type: 'string' },
      'webhook-managed': { type: 'string' },
      'leader-election': { type: 'string' },
      'leader-election-namespace': { type: 'string' },
      sharding: { type: 'string' },
      'sharding-namespace': { type: 'string' },
      module: { type: 'string', short: 'm', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/**
 * Seconds of read coalescing under `kopf run` (`networking.readCoalescing`).
 * The process is the operator's own, so blocking its thread for this long after a turn that read
 * from the API delays nothing but the operator. A longer window saves more CPU per object but
 * costs more peak memory, and memory matters as much as CPU for an operator: the shortest window
 * that took most of the saving (measured on the burst benchmark: bench/README.md, "Figures behind
 * the runtime's choices").
 */
const RUN_READ_COALESCING = 0.002;

type RunValues = ReturnType<typeof parseOptions>['values'];

async function run(values: RunValues, positionals: string[]): Promise<number> {
  if (values.help) { process.stdout.write(HELP); return 0; }
  const settings = await runSettings(values);
  if (typeof settings === 'string') { process.stderr.write(`kopf run: ${settings}\n`); return 2; }
  const loaded = await loadOperatorCode(values, positionals);
  if (loaded !== 0) return loaded;
  return serve(values, settings);
}

/** What the options set before the operator's code is loaded. */
interface RunSettings {
  logs: LogConfig;
  priority: number;
  admission: Partial<AdmissionSettings>;
}

/** The settings the options give, or what is wrong with them (checked before any code is loaded). */
async function runSettings(values: RunValues): Promise<RunSettings | string> {
  if (values.namespace?.length && values['all-namespaces']) {
    return '--namespace and --all-namespaces exclude each other.';
  }
  const logs = logConfig(values);
  if (typeof logs === 'string') return logs;
  const refusal = compileCacheRefusal();
  if (refusal) new Logger(logs, 'kopf.run').warning(`Running without Node's compile cache: ${refusal}.`);
  const priority = values.dev ? 666 : values.priority === undefined ? 0 : Number(values.priority);
  if (!Number.isInteger(priority)) return `--priority must be an integer, not '${values.priority}'.`;
  const admission = await admissionOptions(values);
  if (typeof admission === 'string') return admission;
  if (values.liveness !== undefined) {
    try {
      parseEndpoint(values.liveness);
    } catch (error) {
      return `--liveness: ${(error as Error).message}`;
    }
  }
  if (values.metrics !== undefined) {
    try {
      parseEndpoint(values.metrics, 'metrics endpoint');
    } catch (error) {
      return `--metrics: ${(error as Error).message}`;
    }
  }
  return { logs, priority, admission };
}

/** The logging the options ask for, or what is wrong with them. */
function logConfig(values: RunValues): LogConfig | string {
  const format = (values['log-format'] ?? 'full') as LogFormat;
  if (!['plain', 'full', 'json'].includes(format)) {
    return `--log-format must be plain, full or json, not '${format}'.`;
  }
  const verbosity: Verbosity = values.debug ? 'debug' : values.verbose ? 'verbose' : values.quiet ? 'quiet' : 'normal';
  return new LogConfig(
    {
      verbosity,
      format,
      prefix: values['no-log-prefix'] ? false : values['log-prefix'] ? true : null,
      refkey: values['log-refkey'] ?? null,
    }
  );
}

/** Imports the operator's files, then its modules; the exit code if one is missing (2) or broken (1), else 0. */
async function loadOperatorCode(values: RunValues, positionals: string[]): Promise<number> {
  const missing = positionals.filter((file) => !existsSync(file));
  if (missing.length) {
    process.stderr.write(`kopf run: no such file: ${missing.join(', ')}\n`);
    return 2;
  }
  return (await loadOperator('run', positionals, values.module)) ? 0 : 1;
}

/**
 * Imports the operator's files, then its modules, as `kopf <command>` (run, dev, demo, rbac) does; false
 * if one cannot be loaded, which is said on stderr.
 */
export async function loadOperator(
  command: string, files: readonly string[], modules: readonly string[] = [],
): Promise<boolean> {
  for (const file of files) {
    if (!(await load(command, file, () => pathToFileURL(resolve(file)).href))) return false;
  }
  // Module names are resolved from the current directory, as a user expects from a CLI.
  for (const name of modules) {
    const url = () => (name.startsWith('.') ? pathToFileURL(resolve(name)).href : resolveFromCwd(name));
    if (!(await load(command, `module ${name}`, url))) return false;
  }
  return true;
}

/** Runs the operator until a signal stops it or it fails; the process's exit code. */
async function serve(values: RunValues, { logs, priority, admission }: RunSettings): Promise<number> {
  const stop = new AbortController();
  const leaderElection = {
    name: values['leader-election'] ?? null,
    ...(values['leader-election-namespace'] !== undefined && { namespace: values['leader-election-namespace'] }),
  };
  const sharding = {
    ring: values.sharding ?? null,
    ...(values['sharding-namespace'] !== undefined && { namespace: values['sharding-namespace'] }),
  };
  const op = operator({
    settings: defaultSettings({
      networking: { readCoalescing: RUN_READ_COALESCING }, leaderElection, sharding, admission,
    }),
    logs, namespaces: values.namespace ?? [], clusterwide: !values.namespace?.length,
    standalone: values.standalone ?? false, priority, peering: values.peering, signal: stop.signal,
    liveness: values.liveness, metrics: values.metrics, clock: clockOfParent(),
  });
  const logger = op.logger.child('kopf.run');
  if (!values.namespace?.length && !values['all-namespaces']) {
    logger.warning(
      'Neither --namespace nor --all-namespaces is given: serving the whole cluster. Pass -A to say so explicitly.'
    );
  }
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      logger.info(`Signal ${sig} is received. Operator is stopping.`);
      stop.abort(STOP_ANNOUNCED);
    });
  }
  // The process is the operator's: a forgotten promise is logged, an uncaught exception stops it (exit 1).
  let code = 0;
  guardProcess(logger, () => { code = 1; stop.abort(STOP_ANNOUNCED); });
  // An operator with nothing to watch (only activities) holds no socket or timer: the process must
  // still run until it is told to stop, as Kopf's does, and run its cleanup handlers then.
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  try {
    await op.done;
  } catch (error) {
    // A configuration the user must fix (the kubeconfig, the RBAC) needs its message, not a trace through our code.
    const configuration = error instanceof KubeConfigError || isOrWraps(error, (e) => e instanceof AuthorizationError);
    logger.critical(`The operator has failed: ${(error as Error).message}`, configuration ? undefined : error);
    code = 1;
  }
  // The operator has stopped. A handler still running past the exit timeout (its timers, its
  // sockets) must not keep the process: it is abandoned, as a crash would leave it.
  clearInterval(keepAlive);
  setImmediate(() => process.exit(code));
  return code;
}

/**
 * The admission settings the `--webhook-*` options give (startup handlers may change them), or what
 * is wrong. The server's code (TLS certificates, HTTP parsing) is loaded only when an option asks for it.
 */
async function admissionOptions(
  values: RunValues,
): Promise<Partial<AdmissionSettings> | string> {
  const port = values['webhook-port'] === undefined ? undefined : Number(values['webhook-port']);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) {
    return `--webhook-port must be a port number, not '${values['webhook-port']}'.`;
  }
  if (Boolean(values['webhook-cert']) !== Boolean(values['webhook-key'])) {
    return '--webhook-cert and --webhook-key go together.';
  }
  const service = values['webhook-service']?.match(/^([^/:]+)\/([^/:]+)(?::(\d+))?$/);
  if (values['webhook-service'] !== undefined && !service) {
    return `--webhook-service must be NAMESPACE/NAME[:PORT], not '${values['webhook-service']}'.`;
  }
  const options: WebhookServerOptions = {
    port, addr: values['webhook-addr'], host: values['webhook-host'], path: values['webhook-path'],
    certFile: values['webhook-cert'], keyFile: values['webhook-key'],
    service: service ? { namespace: service[1]!, name: service[2]!, port: Number(service[3] ?? 443) } : undefined,
  };
  const served = Object.values(options).some((value) => value !== undefined);
  if (!served) return { managed: values['webhook-managed'] };
  const { WebhookServer } = await import('../webhooks/server.ts');
  return { server: new WebhookServer(options), managed: values['webhook-managed'] };
}

/**
 * Imports an operator's file or module for a command (`run`, `dev`, `rbac`); says what broke if it
 * cannot: where a syntax error is (Node puts the line and a caret above the message in the stack),
 * or the trace of an error thrown while the file ran.
 */
async function load(command: string, what: string, url: () => string): Promise<boolean> {
  try {
    await import(url());
    return true;
  } catch (error) {
    process.stderr.write(`kopf ${command}: cannot load ${what}:\n${describeLoadError(error)}\n`);
    return false;
  }
}

/** A package name, resolved as an `import` in a module of the current directory resolves it. */
function resolveFromCwd(name: string): string {
  const parentURL = pathToFileURL(`${process.cwd()}/`).href;
  // `import.meta.resolve` accepts another parent only behind a flag; a resolve hook can give it one.
  const hooks = registerHooks(
    { resolve: (specifier, context, next) => next(specifier, specifier === name ? { ...context, parentURL } : context) }
  );
  try {
    return import.meta.resolve(name);
  } finally {
    hooks.deregister();
  }
}

function describeLoadError(error: unknown): string {
  if (!(error instanceof Error)) return thrownText(error);
  // A file imported by the operator's file is not there: the message names it; the trace is Node's.
  if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
    return error.message + extensionHint((error as { url?: unknown }).url);
  }
  const lines = (error.stack ?? `${error.name}: ${error.message}`).split('\n');
  if (error instanceof SyntaxError) {
    // The location (file:line, the source line, a caret) and the message; no frames below them.
    const end = lines.findIndex((line) => FRAME.test(line));
    return lines.slice(0, end < 0 ? undefined : end).filter(Boolean).join('\n');
  }
  // The frames of the user's code; Node's module loader below them says nothing to the user.
  return lines.filter((line) => !(FRAME.test(line) && line.includes('node:internal/'))).join('\n');
}

const FRAME = /^\s+at /;

/**
 * Node resolves a relative import as it is written, so one without its extension is "not found"
 * beside the very file it means: then the message says which file that is.
 */
function extensionHint(url: unknown): string {
  if (typeof url !== 'string' || !url.startsWith('file:')) return '';
  const path = fileURLToPath(url);
  const meant = ['.ts', '.mts', '.js', '.mjs'].map((extension) => path + extension).find((file) => existsSync(file));
  if (!meant) return '';
  return `\n(relative imports name the file with its extension: ${basename(meant)}, not ${basename(path)})`;
}
