/**
 * `kopf rbac [files…]`: prints the RBAC that an operator needs (a ServiceAccount, roles and their
 * bindings, as YAML for `kubectl apply -f -`), derived from the handlers its files register.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { getDefaultRegistry } from '../registry/registry.ts';
import { RbacError, operatorNeeds, rbacManifests, rbacResource, scopeNotes, type Need } from '../rbac/index.ts';
import { load, resolveFromCwd } from './run.ts';
import { usageError } from './usage.ts';

const HELP = `Usage: kopf rbac [options] [files…]

Prints the RBAC an operator needs, as YAML for \`kubectl apply -f -\`: a ServiceAccount, and a
ClusterRole and ClusterRoleBinding (cluster-wide, or namespaces by pattern), or a Role and
RoleBinding in each namespace served (and a ClusterRole for what is cluster-scoped). Derived from
the handlers the files register: the served resources (list, watch; patch and their status when
changing handlers store progress and results), events (create), CRDs (list, watch) for resources
named by strings, namespaces (list, watch) for namespace patterns, the webhook configurations
(create, patch) for admission handlers. What the handlers' own API calls need cannot be derived:
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
      --sharding                  The operator is a ring's replica (the ring's name does not matter here):
                                  its Leases, and patches of the served objects (their assignment labels).
      --sharding-namespace NS     The ring's Leases' namespace (default: the service account's).

Admission webhooks (docs/webhooks.md): with admission handlers, the managed webhook configurations
are granted (the setting is made when the operator runs, out of sight here):
      --webhook-managed NAME      Their name, as for kopf run: patches are allowed on these only.
      --no-webhook-managed        Leave them out: the configurations are written by other means.

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

export async function main(argv: string[]): Promise<number> {
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
  if (values.help) { process.stdout.write(HELP); return 0; }
  const print = keepStdoutFor(values.output);
  if (values.namespace?.length && values['all-namespaces']) {
    return usageError('rbac', '--namespace and --all-namespaces exclude each other.');
  }
  if (values['webhook-managed'] !== undefined && values['no-webhook-managed']) {
    return usageError('rbac', '--webhook-managed and --no-webhook-managed exclude each other.');
  }
  const missing = positionals.filter((file) => !existsSync(file));
  if (missing.length) return usageError('rbac', `no such file: ${missing.join(', ')}`);
  for (const file of positionals) if (!(await load(file, () => pathToFileURL(resolve(file)).href))) return 1;
  for (const name of values.module ?? []) {
    const url = () => (name.startsWith('.') ? pathToFileURL(resolve(name)).href : resolveFromCwd(name));
    if (!(await load(`module ${name}`, url))) return 1;
  }
  const namespaces = values.namespace ?? [];
  const serviceAccount = {
    name: values['service-account'] ?? 'kopf-operator',
    namespace: values['service-account-namespace'] ?? 'default',
  };
  const elected = values['leader-election'] !== undefined || values['leader-election-namespace'] !== undefined;
  const leaseNamespace = values['leader-election-namespace'] ?? serviceAccount.namespace;
  const leaderElection = elected ? { namespace: leaseNamespace } : undefined;
  const sharded = values.sharding !== undefined || values['sharding-namespace'] !== undefined;
  const sharding = sharded ? { namespace: values['sharding-namespace'] ?? serviceAccount.namespace } : undefined;
  let needs: Need[];
  try {
    const webhookManaged = values['no-webhook-managed'] ? false : values['webhook-managed'] ?? true;
    const options = {
      namespaces, events: !values['no-events'], standalone: values.standalone, leaderElection, sharding,
      webhookManaged,
    };
    const derived = operatorNeeds(getDefaultRegistry(), options);
    needs = [...derived, ...(values.rule ?? []).map(parseRule)];
  } catch (error) {
    if (!(error instanceof RbacError || error instanceof TypeError)) throw error;
    process.stderr.write(`kopf rbac: ${error.message}\n`);
    return 2;
  }
  if (!getDefaultRegistry().resourceHandlers.length && !getDefaultRegistry().webhookHandlers.length) {
    process.stderr.write('kopf rbac: no resource handlers are registered by these files: ' +
      'only the framework\'s own needs are printed.\n');
  }
  const manifests = rbacManifests(needs, { serviceAccount, name: values.name, namespaces });
  return print(`${header(needs, namespaces)}${manifests.map((m) => stringify(m)).join('---\n')}`);
}

/**
 * Keeps stdout for the YAML, so that `kopf rbac > rbac.yaml` makes a file kubectl takes: from now
 * on, whatever else writes to stdout (the operator's files printing as they are imported, at once
 * or later) goes to stderr. Returns how the YAML is written — to stdout, or to `file` — and the
 * exit code of that.
 */
function keepStdoutFor(file: string | undefined): (yaml: string) => number {
  const stdout = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return (yaml) => {
    if (file === undefined) {
      stdout(yaml);
      return 0;
    }
    try {
      writeFileSync(file, yaml);
      return 0;
    } catch (error) {
      process.stderr.write(`kopf rbac: cannot write ${file}: ${(error as Error).message}\n`);
      return 1;
    }
  };
}

/** `get,list:pods`, `create:deployments.apps`, `get:pods/log` as a need. */
function parseRule(text: string): Need {
  const [verbs = '', target = ''] = text.split(':');
  const [name = '', subresource] = target.split('/');
  if (!verbs || !name || text.split(':').length !== 2) {
    throw new RbacError(`--rule '${text}': write it as VERBS:RESOURCE, e.g. get,list:pods.`);
  }
  const resource = rbacResource(name);
  return {
    group: resource.group, resource: subresource ? `${resource.plural}/${subresource}` : resource.plural,
    verbs: verbs.split(',').map((verb) => verb.trim()).filter(Boolean),
    clusterScoped: resource.clusterScoped, why: '--rule',
  };
}

/** What the printout grants, where and why, as YAML comments. */
function header(needs: readonly Need[], namespaces: readonly string[]): string {
  const lines = needs.map((need) => {
    const group = need.group ? ` (${need.group})` : '';
    const names = need.resourceNames ? ` named ${need.resourceNames.join(', ')}` : '';
    return `#   ${need.resource}${group}${names}: ${need.verbs.join(', ')} — ${need.why}`;
  });
  return [
    '# The RBAC of the operator, printed by `kopf rbac` from its handlers:',
    ...lines,
    '# The handlers\' own API calls are included only as declared with requires() or --rule.',
    ...scopeNotes(needs, namespaces).map((line) => `# ${line}`),
    '',
  ].join('\n');
}
