/**
 * Engine benchmark: what this runtime's processing costs per object without the network. One
 * object is first taken through its life on a local control plane by the burst benchmark's
 * operator (created, handled, deleted), its watch events recorded; then the recording is replayed
 * through the real processing for many objects in a process of its own (replay.ts), and the CPU
 * (or, with `--callgrind`, the instructions) per object of the measured ones is reported.
 *
 *   node bench/engine/run.ts [--objects 2000] [--warmup 3000] [--repeat 1] [--callgrind] [--record-only FILE]
 *     [--events FILE]
 *
 * The burst benchmark (bench/burst) measures the whole operator, API traffic included, against Kopf;
 * its floor shows what the API traffic alone costs. This one isolates the rest, the framework's own
 * share, and with callgrind counts it exactly enough to judge changes of a few percent, which CPU
 * time on a shared machine cannot. `--events` replays a recording made before (`--record-only`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createObject, deleteObject, KubeClient, watchStream } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import type { KubeObject } from '../../runtime/structs/resources.ts';
import { runOperator, startControlPlane } from '../../runtime/testing.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { CRD_YAML } from '../../test/e2e/rules.ts';
import { countOf, underCallgrind } from '../callgrind.ts';
import { benchOptions } from '../lib/options.ts';
import { fixed, tableHead, tableRow } from '../lib/tables.ts';

const values = benchOptions({
  objects: 2000, warmup: 3000, repeat: 1, callgrind: false, 'record-only': undefined, events: undefined,
});

type Event = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject };

/** One object's life under the burst benchmark's operator, as a watch from outside sees it. */
async function record(): Promise<{ events: Event[]; patchVersions: string[] }> {
  const namespace = 'bench-engine';
  const cp = await startControlPlane();
  try {
    await cp.installCrds([CRD_YAML]);
    const client = KubeClient.fromKubeConfig(cp.kubeconfig);
    await createObject(client, Namespaces, { metadata: { name: namespace } });
    const operator = runOperator(
      {
        files: [join(import.meta.dirname, '../burst/operator.ts')],
        args: ['--standalone', '--namespace', namespace],
        kubeconfigPath: cp.kubeconfigPath,
      }
    );
    const events: Event[] = [];
    const stop = new AbortController();
    let deleting = false;
    try {
      for await (const event of watchStream(client, KopfExample, { namespace, signal: stop.signal })) {
        if (event.type === 'LISTED_DONE') {
          await createObject(
            client,
            KopfExample,
            {
              metadata: { name: 'recorded' },
              spec: { duration: '1m', field: 'value', items: ['item1', 'item2'] },
            } as KopfExample,
            { namespace },
          );
        }
        if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') continue;
        events.push({ type: event.type, object: event.object });
        const status = event.object.status as Record<string, unknown> | undefined;
        if (!deleting && status?.create_fn) {
          deleting = true;
          await deleteObject(client, KopfExample, { namespace, name: 'recorded' });
        }
        if (event.type === 'DELETED') break;
      }
    } finally {
      stop.abort();
      client.close();
      await operator.stop();
    }
    // Every change after the creation is the operator's write, but the one that marked the deletion.
    const marked = events.findIndex((e) => e.object.metadata?.deletionTimestamp);
    const patchVersions = events.filter((e, i) => i > 0 && i !== marked).map(
      (e) => e.object.metadata!.resourceVersion!
    );
    return { events, patchVersions };
  } finally {
    await cp.stop();
  }
}

interface Replayed {
  cpuMicrosPerObject: number;
  /**
   * Thousands of instructions per object, and the code's own work (without V8's compilers and collector); null without
   * `--callgrind`.
   */
  kiloInstructions: number | null;
  kiloInstructionsOwn: number | null;
}

function replay(eventsPath: string, scratch: string, run: number): Promise<Replayed> {
  const args = [
    '--single-threaded',
    join(import.meta.dirname, 'replay.ts'),
    eventsPath,
    String(values.warmup),
    String(values.objects),
    values.callgrind ? '1' : '0',
  ];
  const profile = `callgrind-${run}.out`;
  const [command, argv] = values.callgrind ? underCallgrind(scratch, profile, process.execPath, args) : [
    process.execPath,
    args,
  ];
  return new Promise((resolve, reject) => {
    execFile(command, argv, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`the replay failed: ${error.message}\n${stderr.slice(-2000)}`));
      const { cpuMicrosPerObject } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { cpuMicrosPerObject: number };
      const count = values.callgrind ? countOf(stderr, scratch, profile) : undefined;
      const perObject = (instructions: number) => instructions / values.objects / 1000;
      resolve({
        cpuMicrosPerObject,
        kiloInstructions: count ? perObject(count.total) : null,
        kiloInstructionsOwn: count ? perObject(count.total - count.compiling - count.collecting) : null,
      });
    });
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'kopf-bench-engine-'));
try {
  let eventsPath = values.events;
  if (!eventsPath) {
    const recording = await record();
    eventsPath = values['record-only'] ?? join(scratch, 'events.json');
    writeFileSync(eventsPath, JSON.stringify(recording, null, 1));
    process.stderr.write(`recorded ${recording.events.map((e) => e.type).join(', ')}\n`);
    if (values['record-only']) process.exit(0);
  }
  const { events } = JSON.parse(readFileSync(eventsPath, 'utf8')) as { events: Event[] };
  console.log(
    `\nEngine: ${values.objects} objects after ${values.warmup}, each through its ${events.length} recorded events, ` +
      `no API server.\n`
  );
  console.log(tableHead(['run', 'CPU µs / object', 'instructions / object, k', 'own work, k']));
  for (let run = 1; run <= values.repeat; run++) {
    const m = await replay(eventsPath, scratch, run);
    const figures = [m.cpuMicrosPerObject, m.kiloInstructions, m.kiloInstructionsOwn].map((x) => fixed(x, 1));
    console.log(tableRow([String(run), ...figures]));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
