/**
 * `kopf run [files…]`: loads operator files (TypeScript, run directly by Node) and runs the
 * operator until SIGINT/SIGTERM, then stops it cleanly and exits 0.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { LogConfig, type LogFormat, type Verbosity } from '../logging/index.ts';
import { operator } from '../operator/operator.ts';

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

Peering (the machinery arrives in a later release: these options are accepted and checked, but
not acted upon yet — the operator runs as if standalone):
      --standalone        No peering with other operators.
  -p, --priority N        This operator's priority among its peers (default 0).
  -P, --peering NAME      The peering object's name; makes peering mandatory.
      --dev               Priority 666, for a developer's local operator.

Health (arrives in a later release; accepted):
  -L, --liveness URL      Serve a liveness endpoint, e.g. http://0.0.0.0:8080/healthz.

  -m, --module NAME       Import a module by name (after the files); repeatable.
  -h, --help              This help.
`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true, strict: true,
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
      module: { type: 'string', short: 'm', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { process.stdout.write(HELP); return 0; }
  if (values.namespace?.length && values['all-namespaces']) {
    process.stderr.write('kopf run: --namespace and --all-namespaces exclude each other.\n');
    return 2;
  }
  const format = (values['log-format'] ?? 'full') as LogFormat;
  if (!['plain', 'full', 'json'].includes(format)) {
    process.stderr.write(`kopf run: --log-format must be plain, full or json, not '${format}'.\n`);
    return 2;
  }
  const verbosity: Verbosity = values.debug ? 'debug' : values.verbose ? 'verbose' : values.quiet ? 'quiet' : 'normal';
  const logs = new LogConfig({ verbosity, format, prefix: values['no-log-prefix'] ? false : values['log-prefix'] ? true : null, refkey: values['log-refkey'] ?? null });
  const priority = values.dev ? 666 : values.priority === undefined ? 0 : Number(values.priority);
  if (!Number.isInteger(priority)) { process.stderr.write(`kopf run: --priority must be an integer, not '${values.priority}'.\n`); return 2; }

  for (const file of positionals) await import(pathToFileURL(resolve(file)).href);
  // Module names are resolved from the current directory, as a user expects from a CLI.
  for (const name of values.module ?? []) await import(name.startsWith('.') ? pathToFileURL(resolve(name)).href : import.meta.resolve(name, pathToFileURL(`${process.cwd()}/`).href));

  const stop = new AbortController();
  const op = operator({
    logs, namespaces: values.namespace ?? [], clusterwide: !values.namespace?.length,
    standalone: values.standalone ?? false, priority, peering: values.peering, signal: stop.signal,
  });
  const logger = op.logger.child('kopf.run');
  if (!values.namespace?.length && !values['all-namespaces']) {
    logger.warning('Neither --namespace nor --all-namespaces is given: serving the whole cluster. Pass -A to say so explicitly.');
  }
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      logger.info(`Signal ${sig} is received. Operator is stopping.`);
      stop.abort();
    });
  }
  try {
    await op.done;
    return 0;
  } catch (error) {
    logger.critical(`The operator has failed: ${(error as Error).message}`, error);
    return 1;
  }
}
