#!/usr/bin/env node
/**
 * `create-kopf-operator [folder] [options]` (also `npm init kopf-operator …`): a new operator
 * project, ready for `npm start` and `npm test`. In a terminal it asks for what the options leave
 * open; elsewhere it takes options, and defaults only with `--yes`.
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULTS, packageNameOf } from '../project/options.ts';
import type { ProjectOptions, Scope } from '../project/options.ts';
import { OWN_VERSION, ScaffoldError, scaffold } from '../project/scaffold.ts';

const HELP = `Usage: create-kopf-operator [folder] [options]
       npm init kopf-operator [folder] -- [options]

Creates a Kubernetes operator project in TypeScript with kopf: a CRD with a schema, types generated
from it, handlers that own a ConfigMap per object, a test on a local control plane, a Dockerfile
and deploy/ manifests. In a terminal, it asks for what the options leave open.

Options:
      --kind KIND           Kind of the custom resource (default ${DEFAULTS.kind}).
      --group GROUP         API group (default ${DEFAULTS.group}).
      --api-version V       API version (default ${DEFAULTS.version}).
      --scope SCOPE         Namespaced or Cluster (default ${DEFAULTS.scope}).
      --name NAME           npm package name (default: the folder's name).
  -y, --yes                 Defaults for whatever is not given; ask nothing.
      --no-install          Do not run npm install.
      --from PATH           Take kopf and kopf-gen from a checkout of kopf or a folder of packed
                            tarballs (npm pack) instead of the registry; works offline.
  -V, --version             This command's version.
  -h, --help                This help.

The folder must not exist or be empty.
`;

const OPTIONS = {
  kind: { type: 'string' }, group: { type: 'string' }, 'api-version': { type: 'string' }, scope: { type: 'string' },
  name: { type: 'string' }, yes: { type: 'boolean', short: 'y' }, install: { type: 'boolean', default: true },
  from: { type: 'string' }, version: { type: 'boolean', short: 'V' }, help: { type: 'boolean', short: 'h' },
} as const;

/**
 * What `parseArgs` refused, said for a command line. Its message for an unknown option goes on about
 * positional arguments after `--`, which a misspelt option never is: only the option is kept.
 */
function refusedArgsMessage(error: Error): string {
  const unknown = /^(Unknown option '[^']*')\. To specify a positional argument/.exec(error.message);
  return unknown ? `${unknown[1]}.` : error.message;
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, allowNegative: true, strict: true });
  } catch (error) {
    const message = refusedArgsMessage(error as Error);
    process.stderr.write(`create-kopf-operator: ${message}\nSee create-kopf-operator --help.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) { process.stdout.write(HELP); return 0; }
  if (values.version) { process.stdout.write(`${OWN_VERSION}\n`); return 0; }
  if (positionals.length > 1) {
    process.stderr.write(`create-kopf-operator: one folder at most, got ${positionals.join(' ')}\n`);
    return 2;
  }
  const given = {
    dir: positionals[0], kind: values.kind, group: values.group, version: values['api-version'],
    scope: values.scope as Scope | undefined,
  };
  const answers = await complete(given, values.yes ?? false);
  if (!answers) return answers === null ? 2 : 1;
  const options: ProjectOptions = { ...answers, name: values.name ?? packageNameOf(answers.dir) };
  try {
    const log = (line: string): void => { process.stdout.write(`${line}\n`); };
    const result = await scaffold({ ...options, from: values.from, install: values.install, log });
    process.stdout.write(nextSteps(options.dir, result.installed));
    return 0;
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    process.stderr.write(`create-kopf-operator: ${error.message}\n`);
    return 1;
  }
}

type Given = { dir?: string; kind?: string; group?: string; version?: string; scope?: Scope };

/**
 * Every value of the project: given, asked (in a terminal), or defaulted (`--yes`). `undefined`
 * when the user cancelled a question, `null` when values are missing and cannot be asked for.
 */
async function complete(given: Given, yes: boolean): Promise<Required<Given> | undefined | null> {
  const defined = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Given;
  if (yes) return { ...DEFAULTS, ...defined };
  if (process.stdin.isTTY && process.stdout.isTTY) {
    const { ask } = await import('./prompts.ts');
    return ask(defined);
  }
  const missing = (Object.keys(DEFAULTS) as (keyof Given)[]).filter((key) => defined[key] === undefined);
  if (!missing.length) return defined as Required<Given>;
  const flags = missing.map((key) => (key === 'dir' ? 'a folder' : `--${key === 'version' ? 'api-version' : key}`));
  process.stderr.write('create-kopf-operator: not in a terminal, so nothing can be asked: '
    + `give ${flags.join(', ')}, or --yes for the defaults.\n`);
  return null;
}

const START = 'npm start        # the operator on your cluster, or on a local control plane';

function nextSteps(dir: string, installed: boolean): string {
  const rel = relative(process.cwd(), dir);
  const where = rel.startsWith('..') ? dir : rel || '.';
  const steps = installed
    ? [`cd ${where}`, START, 'npm test         # its test on a local control plane']
    : [`cd ${where}`, 'npm install', START];
  return `\nDone. Next:\n\n${steps.map((step) => `  ${step}\n`).join('')}\n`
    + 'After a change of crds/, `npm run gen` updates the types; `npm run typecheck` finds what broke.\n';
}

/**
 * Runs the command line of this process. The `create-kopf-operator` bin (bin/create-kopf-operator.js)
 * calls it once it has checked that this Node is new enough; a run of this file itself starts here too.
 */
export function start(): void {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (error: unknown) => {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`create-kopf-operator: ${text}\n`);
      process.exitCode = 1;
    },
  );
}

if (import.meta.main) start();

