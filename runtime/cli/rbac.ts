/**
 * `kopf rbac [files…]`: prints the RBAC that an operator needs (a ServiceAccount, roles and their
 * bindings, as YAML for `kubectl apply -f -`), derived from the handlers its files register.
 *
 * The files are loaded in a process of its own (rbac-printout.ts) whose stdout is this process's
 * stderr: whatever they print, as they are imported or later, stays out of the YAML, and nothing
 * of this process is replaced for it.
 */
import { fork } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Printout, PrintoutRequest } from './rbac-printout.ts';
import { usageError } from './usage.ts';

const HELP = `Usage: kopf rbac [options] [files…]

Prints the RBAC an operator needs, as YAML for \`kubectl apply -f -\`: a ServiceAccount, and a
ClusterRole and ClusterRoleBinding (cluster-wide, or namespaces by pattern), or a Role and
RoleBinding in each namespace served (and a ClusterRole for what is cluster-scoped). Derived from
the handlers the files register: the served resources (list, watch; patch and their status when
changing handlers store progress and results), events (create), CRDs (list, watch) for resources
named by strings, namespaces (list, watch) for namespace patterns, the webhook configurations
(create, patch) for admission handlers, the converted resources' CRDs (patch, by name) for
converters. What the handlers' own API calls need cannot be derived:
declare it with requires() next to the handlers (with { namespace } for a Role in that namespace
only), or with --rule.

Scope (as for kopf run):
  -n, --namespace NS              A namespace served; repeatable; globs (*, ?) and !exclusions allowed.
  -A, --all-namespaces            The whole cluster (the default when no --namespace is given).

Names:
      --service-account NAME      The operator's service account (default: kopf-operator).
      --service-account-namespace NS
                                  Its namespace (default: default).
      --name NAME                 The roles' and bindings' name (default: the service account's).

Peering and leader election (as for kopf run; docs/peering.md):
      --standalone                No peering: the peering objects are not needed.
      --leader-election           The operator is elected on a Lease (its name does not matter here).
      --leader-election-namespace NS
                                  The Lease's namespace (default: the service account's).
      --sharding[=RING]           The operator is a ring's replica: its Leases, its key (a Secret; with
                                  RING, get on that Secret only), and patches of the served objects.
      --sharding-namespace NS     The ring's Leases' namespace (default: the service account's).

Admission webhooks (docs/webhooks.md): with admission handlers, the managed webhook configurations
are granted, and with converters (docs/versions.md), patches of their CRDs (the setting is made when
the operator runs, out of sight here):
      --webhook-managed NAME      Their name, as for kopf run: patches are allowed on these only.
      --no-webhook-managed        Leave them out: the configurations (and the CRDs' conversion) are
                                  written by other means.

Rules:
      --rule VERBS:RESOURCE       More verbs on a resource, e.g. get,list:pods or create:deployments.apps
                                  or get:pods/log; repeatable. RESOURCE is a built-in kind's name or
                                  <plural>.<group>, with /<subresource> if any.
      --no-events                 The operator posts no events (settings.posting.enabled is false).

Output:
  -o, --output FILE               Write the YAML to FILE instead of stdout.
Only the YAML goes to stdout: what the operator's files print (console.log at import) goes to stderr.

  -m, --module NAME               Import a module by name (after the files); repeatable.
  -h, --help                      This help.
`;

/** Writes the YAML (or the help) through `out`, stdout unless given. */
export async function main(argv: string[], out: (text: string) => void = writeStdout): Promise<number> {
  const { values, positionals } = parseArgs({
    // `--leader-election` takes a value only after `=`, as for `kopf run`: alone, it is on.
    args: argv.map((arg) => (arg === '--leader-election' || arg === '--sharding' ? `${arg}=` : arg)),
    allowPositionals: true, strict: true,
    options: {
      namespace: { type: 'string', short: 'n', multiple: true },
      'all-namespaces': { type: 'boolean', short: 'A' },
      'service-account': { type: 'string' },
      'service-account-namespace': { type: 'string' },
      name: { type: 'string' },
      rule: { type: 'string', multiple: true },
      'no-events': { type: 'boolean' },
      standalone: { type: 'boolean' },
      'leader-election': { type: 'string' },
      'leader-election-namespace': { type: 'string' },
      sharding: { type: 'string' },
      'sharding-namespace': { type: 'string' },
      'webhook-managed': { type: 'string' },
      'no-webhook-managed': { type: 'boolean' },
      module: { type: 'string', short: 'm', multiple: true },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { out(HELP); return 0; }
  if (values.namespace?.length && values['all-namespaces']) {
    return usageError('rbac', '--namespace and --all-namespaces exclude each other.');
  }
  if (values['webhook-managed'] !== undefined && values['no-webhook-managed']) {
    return usageError('rbac', '--webhook-managed and --no-webhook-managed exclude each other.');
  }
  const missing = positionals.filter((file) => !existsSync(file));
  if (missing.length) return usageError('rbac', `no such file: ${missing.join(', ')}`);
  const serviceAccount = {
    name: values['service-account'] ?? 'kopf-operator',
    namespace: values['service-account-namespace'] ?? 'default',
  };
  const elected = values['leader-election'] !== undefined || values['leader-election-namespace'] !== undefined;
  const leaseNamespace = values['leader-election-namespace'] ?? serviceAccount.namespace;
  const sharded = values.sharding !== undefined || values['sharding-namespace'] !== undefined;
  const printout = await printoutApart({
    files: positionals,
    modules: values.module ?? [],
    namespaces: values.namespace ?? [],
    serviceAccount,
    name: values.name,
    rules: values.rule ?? [],
    events: !values['no-events'],
    standalone: values.standalone,
    leaderElection: elected ? { namespace: leaseNamespace } : undefined,
    sharding: sharded ? {
      namespace: values['sharding-namespace'] ?? serviceAccount.namespace, ring: values.sharding || undefined,
    } : undefined,
    webhookManaged: values['no-webhook-managed'] ? false : values['webhook-managed'] ?? true,
  });
  if ('code' in printout) return printout.code;
  if (values.output === undefined) {
    out(printout.yaml);
    return 0;
  }
  try {
    writeFileSync(values.output, printout.yaml);
    return 0;
  } catch (error) {
    process.stderr.write(`kopf rbac: cannot write ${values.output}: ${(error as Error).message}\n`);
    return 1;
  }
}

function writeStdout(text: string): void {
  process.stdout.write(text);
}

/**
 * The printout, made in a process of its own, whose stdout is this process's stderr; it ends when
 * what the files started has ended, as this process would have. Without an answer (it died), 1.
 */
function printoutApart(request: PrintoutRequest): Promise<Printout> {
  return new Promise((resolve, reject) => {
    const child = fork(
      fileURLToPath(new URL('./rbac-printout.ts', import.meta.url)), [], { stdio: ['ignore', 2, 'inherit', 'ipc'] },
    );
    let printout: Printout = { code: 1 };
    child.on('message', (message) => { printout = message as Printout; });
    child.once('error', reject);
    child.once('exit', () => resolve(printout));
    child.send(request);
  });
}
