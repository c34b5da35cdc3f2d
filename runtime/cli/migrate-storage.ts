/**
 * `kopf migrate-storage <crd> [files…]`: every object of the CRD rewritten in its storage version,
 * then `status.storedVersions` trimmed to it (runtime/conversion/migration.ts). With the operator's
 * files, its converters are checked first: a stored version they do not convert refuses the run.
 */
import { parseArgs } from 'node:util';
import { KubeClient } from '../kube/index.ts';
import { getDefaultRegistry } from '../registry/registry.ts';
import { MigrationError, migrateStorage, summaryLine } from '../conversion/migration.ts';
import { thrownText } from '../structs/errors.ts';
import { loadOperator } from './run.ts';
import { usageError } from './usage.ts';

const HELP = `Usage: kopf migrate-storage [options] CRD [files…]

Rewrites every object of the CRD (<plural>.<group>) in its storage version, through the API (the
API server converts each one, through the operator's conversion webhook if the CRD has one), then
trims the CRD's status.storedVersions to the storage version: the older versions can then be
removed from the CRD. Safe to run again: an object already stored in the storage version is not
written. With the conversion webhook, the operator must be running (it answers the conversions).

Given the operator's files (as for kopf run), its converters (on.convert) are checked first: a
stored version that none of them converts refuses the migration before anything is read.

  -m, --module NAME     Import a module by name (after the files); repeatable.
  -q, --quiet           No progress, only the summary line.
  -h, --help            This help.
`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true, strict: true,
    options: {
      module: { type: 'string', short: 'm', multiple: true },
      quiet: { type: 'boolean', short: 'q' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { process.stdout.write(HELP); return 0; }
  const [crd, ...files] = positionals;
  if (!crd) return usageError('migrate-storage', 'name the CRD to migrate, e.g. gadgets.example.com.');
  const modules = values.module ?? [];
  const checked = files.length > 0 || modules.length > 0;
  if (checked && !(await loadOperator('migrate-storage', files, modules))) return 1;
  const converters = checked ? getDefaultRegistry().conversionHandlers : undefined;
  const progress = values.quiet || !process.stderr.isTTY ? undefined : progressLine;
  const client = KubeClient.fromDefault();
  try {
    const summary = await migrateStorage({ client, crd, converters, progress });
    if (progress) process.stderr.write('\n');
    process.stdout.write(`${summaryLine(summary)}\n`);
    return 0;
  } catch (error) {
    if (progress) process.stderr.write('\n');
    const known = error instanceof MigrationError;
    process.stderr.write(`kopf migrate-storage: ${known ? error.message : thrownText(error)}\n`);
    return 1;
  } finally {
    client.close();
  }
}

/** One line on a terminal, rewritten as the objects go. */
function progressLine(done: number, total: number): void {
  process.stderr.write(`\rRewriting the objects: ${done}/${total}`);
}
