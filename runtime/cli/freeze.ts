/**
 * `kopf freeze` and `kopf resume`: a record of a peer that does not run, written into the peering
 * objects of a scope, so that every operator of a lower priority there pauses until it expires (or
 * until `kopf resume` removes it). The records are Kopf's, so either CLI pauses either operator.
 */
import { parseArgs } from 'node:util';
import { KubeClient } from '../kube/index.ts';
import { LogConfig, Logger } from '../logging/index.ts';
import { detectOwnIdentity } from '../peering/identity.ts';
import { touch, type PeeringPlace } from '../peering/keepalive.ts';
import { servedPeeringResources } from '../peering/peering-resources.ts';
import { thrownText } from '../structs/errors.ts';
import { usageError } from './usage.ts';

const SCOPE = `Scope (the peering objects to write to):
  -n, --namespace NS      A namespace's KopfPeering; repeatable.
  -A, --all-namespaces    The ClusterKopfPeering (the default when no --namespace is given).
  -P, --peering NAME      The peering object's name (required).
  -i, --id ID             The record's identity (default: user@host).
  -v, --verbose           Say what is written where.
  -h, --help              This help.
`;

const FREEZE_HELP = `Usage: kopf freeze --peering NAME --lifetime SECONDS [options]

Pauses the operators of a lower priority in the peering objects of the scope for SECONDS (or until
\`kopf resume\`), as Kopf's \`kopf freeze\` does: a record of this identity is written there.

  -t, --lifetime SECONDS  How long the freeze lasts (required).
  -p, --priority N        The freeze's priority (default 100).
      --dev               Priority 666.
  -m, --message TEXT      Accepted, as by Kopf, and not stored.
${SCOPE}`;

const RESUME_HELP = `Usage: kopf resume --peering NAME [options]

Ends a freeze of this identity (\`kopf freeze\`) in the peering objects of the scope: its record is
removed, and the paused operators resume.

${SCOPE}`;

const OPTIONS = {
  namespace: { type: 'string', short: 'n', multiple: true },
  'all-namespaces': { type: 'boolean', short: 'A' },
  peering: { type: 'string', short: 'P' },
  id: { type: 'string', short: 'i' },
  verbose: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      ...OPTIONS,
      lifetime: { type: 'string', short: 't' },
      priority: { type: 'string', short: 'p' },
      dev: { type: 'boolean' },
      message: { type: 'string', short: 'm' },
    },
  });
  if (values.help) { process.stdout.write(FREEZE_HELP); return 0; }
  const lifetime = Number(values.lifetime);
  if (values.lifetime === undefined || !Number.isInteger(lifetime) || lifetime <= 0) {
    return usageError('freeze', '--lifetime must be a positive number of seconds.');
  }
  const priority = values.dev ? 666 : values.priority === undefined ? 100 : Number(values.priority);
  if (!Number.isInteger(priority))
    return usageError('freeze', `--priority must be an integer, not '${values.priority}'.`);
  return writeRecords('freeze', values, priority, lifetime);
}

/** `kopf resume`, from the same options without a lifetime. */
export async function resume(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: OPTIONS });
  if (values.help) { process.stdout.write(RESUME_HELP); return 0; }
  return writeRecords('resume', values, 0, 0);
}

interface ScopeValues {
  namespace?: string[];
  'all-namespaces'?: boolean;
  peering?: string;
  id?: string;
  verbose?: boolean;
}

async function writeRecords(command: string, values: ScopeValues, priority: number, lifetime: number): Promise<number> {
  if (!values.peering) return usageError(command, '--peering NAME is required.');
  if (values.namespace?.length && values['all-namespaces'])
    return usageError(command, '--namespace and --all-namespaces exclude each other.');
  const globbed = values.namespace?.filter((ns) => /[*?!]/.test(ns)) ?? [];
  if (globbed.length)
    return usageError(command, `namespaces must be named exactly here, not as patterns: ${globbed.join(', ')}.`);
  const logger = new Logger(new LogConfig({ verbosity: values.verbose ? 'verbose' : 'normal' }), 'kopf.peering');
  const clusterwide = !values.namespace?.length;
  const own = { identity: values.id ?? detectOwnIdentity({ manual: true }), priority, lifetime, stealth: false };
  const client = KubeClient.fromDefault();
  try {
    const resources = await servedPeeringResources(client, clusterwide);
    if (!resources.length) {
      process.stderr.write(
        `kopf ${command}: the peering CRDs are not served in this cluster (apply what \`kopf peering\` prints).\n`
      );
      return 1;
    }
    let found = 0;
    for (const resource of resources) {
      for (const namespace of clusterwide ? [null] : values.namespace!) {
        const place: PeeringPlace = { client, resource, namespace, name: values.peering };
        if (await touch(place, own, logger, lifetime)) found++;
      }
    }
    if (!found) {
      process.stderr.write(`kopf ${command}: no peering object named '${values.peering}' in this scope.\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    process.stderr.write(`kopf ${command}: ${thrownText(error)}\n`);
    return 1;
  } finally {
    client.close();
  }
}
