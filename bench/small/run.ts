/**
 * Small-operator benchmark: what the smallest operator (examples/01-minimal) holds in memory with
 * a few objects, beside the least a Node process holds, measured side by side in one run on one
 * local control plane.
 *
 *   node bench/small/run.ts [--objects 10] [--repeat 3] [--settle 10] [--contestants bare,tls,built,before]
 *     [--before DIR]
 *
 * The contestants run at the same time, each round in a fresh namespace:
 *   - `bare`: a Node process that does nothing (`setInterval`), Node's own footprint;
 *   - `tls`: a Node process that holds one watch open on the round's namespace over HTTPS with the
 *     admin's client certificate, as an operator does: Node with TLS loaded and one live connection;
 *   - `built`: 01-minimal as a user's image runs it, the runtime as the published package (compiled
 *     JavaScript, bench/burst/built.ts) started by the package's `kopf` command (bin/kopf.js), the
 *     handlers' file already JavaScript;
 *   - `before`: the same, built from another tree of the runtime (`--before DIR`, a checkout with
 *     its node_modules), to measure a change side by side with the code before it.
 * The objects are created once all three are up; `settle` seconds after the operator has handled
 * the last one (its result in the status), the resident memory of each (VmRSS, its anonymous and
 * file-backed parts) and the peak (VmHWM) are read at the same moment. Then the ratios of the
 * operator's RSS to each floor's, per round and their median.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createObject, KubeClient } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { runOperator, type ControlPlane, type RunningOperator } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { exampleObject, pool } from '../burst/objects.ts';
import { Observer } from '../burst/observer.ts';
import { memoryMiB } from '../burst/procstat.ts';
import { buildOperator, type BuiltOperator } from '../burst/built.ts';
import { onControlPlane } from '../lib/cluster.ts';
import { benchOptions, chosen } from '../lib/options.ts';
import { markdownTable, median } from '../lib/tables.ts';

const values = benchOptions({ objects: 10, repeat: 3, settle: 10, contestants: 'bare,tls,built', before: undefined });
const OBJECTS = values.objects;
const REPEAT = values.repeat;
const SETTLE = values.settle;
const READY = 'floor ready';

/** Node doing nothing; plain JavaScript, so that no TypeScript stripper is loaded. */
const BARE = `setInterval(() => {}, 1e9); console.log('${READY}');`;

/**
 * Node with one watch open over HTTPS, the credentials from the environment; the events are read
 * and dropped. Plain JavaScript, as BARE.
 */
const TLS = `
const https = require('node:https');
const { server, ca, cert, key, path } = JSON.parse(process.env.FLOOR_API);
const request = https.get(new URL(path, server), { ca, cert, key }, (response) => {
  response.resume();
  console.log('${READY}');
});
request.on('error', (error) => { console.error(error); process.exit(1); });
setInterval(() => {}, 1e9);
`;

interface Contestant { name: string; label: string; start(cp: ControlPlane, namespace: string): RunningOperator }

interface Sample { contestant: string; round: number; rss: number; anon: number; file: number; peak: number }

let built: BuiltOperator | undefined;
let builtBefore: BuiltOperator | undefined;

/** What the operators are, as against the floors. */
const OPERATORS = new Set(['built', 'before']);

function runMinimal(operator: BuiltOperator, cp: ControlPlane, namespace: string): RunningOperator {
  return runOperator({
    command: [process.execPath, operator.bin, 'run'],
    files: [operator.minimal],
    args: ['--standalone', '--namespace', namespace],
    kubeconfigPath: cp.kubeconfigPath,
  });
}

const CONTESTANTS: Record<string, Contestant> = {
  bare: {
    name: 'bare', label: 'bare Node',
    start: () => runOperator({ command: [process.execPath, '-e', BARE] }),
  },
  tls: {
    name: 'tls', label: 'Node with TLS, one watch',
    start: (cp, namespace) => runOperator({
      command: [process.execPath, '-e', TLS],
      env: {
        FLOOR_API: JSON.stringify({
          ...cp.credentials,
          path: `/apis/kopf.dev/v1/namespaces/${namespace}/kopfexamples?watch=true`,
        }),
      },
    }),
  },
  built: {
    name: 'built', label: '01-minimal, built',
    start: (cp, namespace) => {
      if (!built) {
        built = buildOperator();
        process.once('exit', built.remove);
      }
      return runMinimal(built, cp, namespace);
    },
  },
  before: {
    name: 'before', label: '01-minimal, built before',
    start: (cp, namespace) => runMinimal(builtBefore!, cp, namespace),
  },
};

/** The other tree's builder, which builds from its own root. */
async function buildBefore(): Promise<void> {
  if (!values.before) throw new Error('The contestant `before` needs --before DIR, the other tree');
  const other = await import(pathToFileURL(join(values.before, 'bench/burst/built.ts')).href) as {
    buildOperator: typeof buildOperator;
  };
  builtBefore = other.buildOperator();
  process.once('exit', builtBefore.remove);
}

function isHandled(object: KopfExample): boolean {
  return Boolean(object.status?.create_fn);
}

async function round(
  cp: ControlPlane, client: KubeClient, contestants: Contestant[], number: number,
): Promise<Sample[]> {
  const namespace = `small-${number}`;
  await createObject(client, Namespaces, { metadata: { name: namespace } });
  const observer = new Observer(client, KopfExample, namespace, isHandled);
  const running = contestants.map((contestant) => ({ contestant, process: contestant.start(cp, namespace) }));
  try {
    await observer.ready;
    const floors = running.filter(({ contestant }) => !OPERATORS.has(contestant.name));
    await Promise.all(floors.map(({ process }) => process.waitFor(READY, { timeout: 60_000 })));
    const names = Array.from({ length: OBJECTS }, (_, i) => `kex-${i}`);
    await pool(names, 4, (name) => createObject(client, KopfExample, exampleObject(name), { namespace }));
    if (running.some(({ contestant }) => OPERATORS.has(contestant.name))) {
      await observer.until(() => names.every((name) => observer.handledAt.has(name)), 120_000, 'all handled');
    }
    await sleep(SETTLE * 1000);
    return running.map(({ contestant, process }) => (
      { contestant: contestant.name, round: number, ...memoryMiB(process.pid) }
    ));
  } finally {
    await Promise.all(running.map(({ process }) => process.stop({ timeout: 30_000 })));
    await observer.stop();
  }
}

function report(samples: Sample[], contestants: Contestant[]): string {
  const header = ['contestant', 'round', 'RSS MiB', 'anonymous MiB', 'file-backed MiB', 'peak RSS MiB'];
  const rows = [markdownTable(header, samples.map((s) => [
    CONTESTANTS[s.contestant]!.label, String(s.round), ...[s.rss, s.anon, s.file, s.peak].map((mib) => mib.toFixed(1)),
  ]))];
  for (const operator of contestants.filter((c) => OPERATORS.has(c.name))) {
    // Each operator against each floor, and the operator built now against the one built before.
    const against = contestants.filter((c) => !OPERATORS.has(c.name) || (operator.name === 'built' && c !== operator));
    for (const floor of against) {
      const ratios = [...new Set(samples.map((s) => s.round))].map((r) => {
        const of = (name: string): Sample => samples.find((s) => s.round === r && s.contestant === name)!;
        return of(operator.name).rss / of(floor.name).rss;
      });
      const each = ratios.map((r) => `${r.toFixed(2)}×`).join(', ');
      rows.push('', `${operator.label} / ${floor.label}, RSS: ${each} (median ${median(ratios).toFixed(2)}×)`);
    }
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const contestants = chosen(values.contestants, CONTESTANTS);
  if (contestants.some((c) => c.name === 'before')) await buildBefore();
  const samples: Sample[] = [];
  await onControlPlane(async (cp, client) => {
    for (let number = 1; number <= REPEAT; number++) {
      process.stderr.write(`round ${number}: ${contestants.map((c) => c.name).join(', ')}, ${OBJECTS} objects…\n`);
      samples.push(...await round(cp, client, contestants, number));
    }
  });
  const what = `${OBJECTS} KopfExample objects, RSS ${SETTLE} s after the last was handled`;
  console.log(`\nSmall operator: ${what}, Node ${process.versions.node}.\n`);
  console.log(report(samples, contestants));
}

await main();
