/**
 * `kopf peering`: prints the peering CRDs and the `default` peering objects, to apply with
 * `kubectl apply -f -` before running operators that peer (or `kopf freeze`).
 */
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { peeringManifests } from '../peering/peering-resources.ts';

const HELP = `Usage: kopf peering [--namespace NS]

Prints the peering CRDs (ClusterKopfPeering and KopfPeering, kopf.dev/v1, as Kopf defines them) and
a \`default\` object of each (the KopfPeering in NS, \`default\` unless given), as YAML documents:

  kopf peering | kubectl apply -f -
`;

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: { namespace: { type: 'string', short: 'n' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) { process.stdout.write(HELP); return 0; }
  const documents = peeringManifests(values.namespace ?? 'default').map((manifest) => stringify(manifest));
  process.stdout.write(`---\n${documents.join('---\n')}`);
  return 0;
}
