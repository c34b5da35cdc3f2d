/**
 * One fault-injection scenario: a namespace of its own, the journaled operator run by `kopf run`
 * as a child process (killed and restarted as the test says), the objects the test creates,
 * changes and deletes, and the verdict at the end: every object reached its final state (its
 * handlers' results in status for the latest step; gone after deletion, its delete handler run
 * if it had our finalizer), no handler ran again after its success had been recorded, and no two
 * operator processes were ever in one object's handlers at the same time. A scenario may run
 * several operators at once (replicas of one operator, `args` say how they coordinate).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createObject, deleteObject, patchObject } from '../../runtime/kube/index.ts';
import { Namespaces } from '../../runtime/structs/builtins.ts';
import { runOperator, type RunningOperator } from '../../runtime/testing/runner.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { Cluster } from '../e2e/cluster.ts';
import { FINALIZER } from '../e2e/rules.ts';
import type { TestCluster } from '../e2e/use-cluster.ts';
import {
  overlaps, readJournal, readRuns, rerunsAfterRecording, runsOf, type JournalEntry, type Run,
} from './journal.ts';
import { describeRow, recordRow, type SummaryRow } from './summary.ts';

const OPERATOR = join(import.meta.dirname, 'operator', 'journaled.ts');

/** What a test expects of an object in the end. */
interface Expected {
  name: string;
  uid: string;
  step: number;
  /** Deletion was asked for: the object must be gone. */
  deleted: boolean;
  /** It carried our finalizer when deletion was asked for: the delete handler must have run. */
  finalizedAtDeletion: boolean;
}

export interface ScenarioOptions {
  /** The row's name in the summary. */
  title: string;
  namespace: string;
  /** Merged into the operator's settings at its startup (per group), e.g. `{ watching: { … } }`. */
  settings?: Record<string, Record<string, unknown>>;
  /** The seed, if the test is randomised. */
  seed?: number;
  /** The operator names its resource by this string (resolved through discovery), not by a descriptor. */
  resourceName?: string;
  /** How the operators coordinate (`kopf run` options); `['--standalone']` if not given. */
  args?: readonly string[];
  /** The least time a handler run takes, in ms (10 if not given). */
  workMs?: number;
}

export class Scenario {
  readonly options: ScenarioOptions;
  readonly cluster: TestCluster;
  /** The test's own client, straight to the apiserver. */
  readonly kube: Cluster;
  /** Faults injected so far; tests add theirs (kills count themselves). */
  faults = 0;
  #objects = new Map<string, Expected>();
  #operators: RunningOperator[] = [];
  #dir: string;
  #journal: string;
  #started = Date.now();
  /** When each stopped operator process was gone (pid → ms since the epoch): its unfinished runs end there. */
  #gone = new Map<number, number>();

  constructor(cluster: TestCluster, options: ScenarioOptions) {
    this.cluster = cluster;
    this.options = options;
    this.kube = new Cluster(cluster.cp.kubeconfig);
    this.#dir = mkdtempSync(join(tmpdir(), 'kopf-faults-'));
    this.#journal = join(this.#dir, 'journal.jsonl');
  }

  /** Creates the namespace; the scenario is closed after the test (its operator stopped). */
  static async open(t: TestContext, cluster: TestCluster, options: ScenarioOptions): Promise<Scenario> {
    const scenario = new Scenario(cluster, options);
    t.after(() => scenario.close());
    if (options.seed !== undefined) t.diagnostic(`seed ${options.seed} (replay: KOPF_FAULTS_SEED=${options.seed})`);
    await createObject(scenario.kube.client, Namespaces, { metadata: { name: options.namespace } });
    return scenario;
  }

  /** Every operator process started, in order (running or not). */
  get operators(): readonly RunningOperator[] {
    return this.#operators;
  }

  /** The operator started last (running or not). */
  get operator(): RunningOperator {
    const last = this.#operators.at(-1);
    if (!last) throw new Error('no operator was started');
    return last;
  }

  get journal(): JournalEntry[] {
    return readJournal(this.#journal);
  }

  /** The journal's runs, each with its end (for a process that died in it, when it was gone). */
  get runs(): Run[] {
    return readRuns(this.#journal, this.#gone);
  }

  /** Starts an operator process (through a proxy if its kubeconfig is given); does not wait for it. */
  start(kubeconfigPath: string = this.cluster.cp.kubeconfigPath): RunningOperator {
    const operator = runOperator({
      files: [OPERATOR],
      args: [...this.options.args ?? ['--standalone'], '-n', this.options.namespace, '--verbose'],
      kubeconfigPath,
      env: {
        FAULTS_JOURNAL: this.#journal,
        FAULTS_KUBECONFIG: this.cluster.cp.kubeconfigPath,
        FAULTS_SETTINGS: JSON.stringify(this.options.settings ?? {}),
        FAULTS_RESOURCE: this.options.resourceName,
        FAULTS_WORK_MS: this.options.workMs === undefined ? undefined : String(this.options.workMs),
      },
    });
    this.#operators.push(operator);
    return operator;
  }

  /** Resolves once the operator watches KopfExamples. */
  async ready(operator: RunningOperator = this.operator): Promise<void> {
    await operator.waitFor(/Starting the watch-stream for kopfexamples\.v1\.kopf\.dev/, { timeout: 60_000 });
  }

  /**
   * Resolves once the operator has finished a handling cycle of this object (after `since` lines): a
   * deletion's cycle ends when the object is gone, without the message of the others.
   */
  async cycleFinished(name: string, since: number, operator: RunningOperator = this.operator): Promise<void> {
    const ended = '(Handling cycle is finished|Deleted, really deleted)';
    const line = new RegExp(`\\[${this.options.namespace}/${name}\\] ${ended}`);
    await operator.waitFor(line, { since, timeout: 60_000 });
  }

  /** SIGKILLs the running operator, or the given one (a fault), and waits for it to be gone. */
  async kill(operator: RunningOperator = this.operator): Promise<void> {
    await this.stop(operator, 'SIGKILL');
    this.faults++;
  }

  /** Stops an operator (cleanly, unless a signal is given) and notes when it was gone. */
  async stop(operator: RunningOperator, signal?: NodeJS.Signals): Promise<void> {
    await operator.stop(signal ? { signal } : {});
    this.#gone.set(operator.pid, Date.now());
  }

  async create(name: string, step = 1): Promise<void> {
    const metadata = { name, namespace: this.options.namespace };
    const object = await createObject(this.kube.client, KopfExample, {
      apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata, spec: { step },
    });
    const uid = object.metadata?.uid ?? '';
    this.#objects.set(name, { name, uid, step, deleted: false, finalizedAtDeletion: false });
  }

  async update(name: string, step: number): Promise<void> {
    await patchObject(this.kube.client, KopfExample, { namespace: this.options.namespace, name }, { spec: { step } });
    this.#expected(name).step = step;
  }

  async delete(name: string): Promise<void> {
    const answer = await deleteObject(this.kube.client, KopfExample, { namespace: this.options.namespace, name });
    const expected = this.#expected(name);
    expected.deleted = true;
    const finalizers = (answer as { metadata?: { finalizers?: string[] } }).metadata?.finalizers ?? [];
    expected.finalizedAtDeletion = finalizers.includes(FINALIZER);
  }

  #expected(name: string): Expected {
    const expected = this.#objects.get(name);
    if (!expected) throw new Error(`${name} was not created by this scenario`);
    return expected;
  }

  /**
   * Waits (up to `timeout` ms) until every object is in its final state, then writes the summary
   * row and asserts that nothing was lost and nothing re-run after its recorded completion.
   */
  async verify(t: TestContext, options: { timeout?: number } = {}): Promise<SummaryRow> {
    const { timeout = 90_000 } = options;
    let last: KopfExample[] = [];
    try {
      last = await this.settled({ timeout });
    } catch (error) {
      // Timed out: what is unfinished now is lost; the row says how much.
      last = (error as { objects?: KopfExample[] }).objects ?? [];
    }
    const journal = this.journal;
    const lost = [...this.#unfinished(last), ...this.#unhandledDeletions(journal)];
    const uids = new Set([...this.#objects.values()].map((o) => o.uid));
    const reruns = rerunsAfterRecording(journal.filter((entry) => uids.has(entry.uid)));
    const row: SummaryRow = {
      test: this.options.title, faults: this.faults, objects: this.#objects.size, lost: lost.length,
      reruns: reruns.length, seconds: (Date.now() - this.#started) / 1000,
      ...(this.options.seed === undefined ? {} : { seed: this.options.seed }),
    };
    recordRow(row);
    t.diagnostic(describeRow(row));
    const mine = journal.filter((entry) => uids.has(entry.uid));
    const repeated = mine.length - new Set(mine.map((e) => `${e.uid} ${e.handler} ${e.step}`)).size;
    t.diagnostic(`${mine.length} handler runs, ${repeated} of them repeated runs (of a handler and step)`);
    const lostNames = lost.map((problem) => problem.split(':')[0]!);
    const lostStory = this.#story(lostNames, journal);
    assert.deepEqual(lost, [], `lost objects (${describeRow(row)}); their story:\n${lostStory}`);
    const rerunStory = this.#story(reruns.map((entry) => entry.name), journal);
    assert.deepEqual(reruns, [], `re-runs after recorded success (${describeRow(row)}); their story:\n${rerunStory}`);
    const together = overlaps(this.runs.filter((run) => uids.has(run.entry.uid)));
    assert.deepEqual(together, [], `two processes in one object's handlers at once (${describeRow(row)})`);
    return row;
  }

  /**
   * Resolves with the namespace's objects once all the scenario's objects are in their final
   * states so far; rejects after `timeout` ms with an error that holds the objects last seen.
   */
  async settled(options: { timeout?: number } = {}): Promise<KopfExample[]> {
    const { timeout = 90_000 } = options;
    let last: KopfExample[] = [];
    try {
      return await this.kube.waitForList(KopfExample, { namespace: this.options.namespace }, (objects) => {
        last = objects;
        return this.#unfinished(objects).length === 0;
      }, { timeout });
    } catch (error) {
      const unsettled = new Error(`not settled: ${this.#unfinished(last).join('; ')}`, { cause: error });
      throw Object.assign(unsettled, { objects: last });
    }
  }

  /** For a failure's message: the objects' journal entries and log lines, of all operator runs, in order. */
  #story(names: readonly string[], journal: readonly JournalEntry[]): string {
    const prefixes = names.map((name) => `[${this.options.namespace}/${name}]`);
    const lines = this.#operators.flatMap((operator, run) => [
      `--- operator run #${run + 1} (pid ${operator.pid})`,
      ...operator.lines.filter((line) => prefixes.some((prefix) => line.includes(prefix))).map((l) => l.slice(0, 400)),
    ]);
    const runs = journal.filter((entry) => names.includes(entry.name)).map((entry) => JSON.stringify(entry));
    return [...runs, ...lines.slice(-80)].map((line) => `  | ${line}`).join('\n');
  }

  /** The objects not in their final state, with what is missing. */
  #unfinished(objects: readonly KopfExample[]): string[] {
    const byName = new Map(objects.map((o) => [o.metadata?.name ?? '', o]));
    const problems: string[] = [];
    for (const expected of this.#objects.values()) {
      const object = byName.get(expected.name);
      if (expected.deleted) {
        const finalizers = object?.metadata?.finalizers;
        if (object) problems.push(`${expected.name}: still there after deletion (finalizers: ${finalizers})`);
        continue;
      }
      const missing = missingResults(object, expected.step);
      if (missing) problems.push(`${expected.name}: ${missing}`);
    }
    return problems;
  }

  #unhandledDeletions(journal: readonly JournalEntry[]): string[] {
    return [...this.#objects.values()]
      .filter((o) => o.deleted && o.finalizedAtDeletion && !runsOf(journal, o.uid, 'delete_fn').length)
      .map((o) => `${o.name}: deleted with our finalizer, but its delete handler never ran`);
  }

  async close(): Promise<void> {
    for (const operator of this.#operators) await operator.stop({ signal: 'SIGKILL' });
    this.kube.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** What is missing for the latest step to count as handled; null if nothing. */
function missingResults(object: KopfExample | undefined, step: number): string | null {
  if (!object) return 'gone, though never deleted';
  const status = (object.status ?? {}) as Record<string, { step?: number } | undefined>;
  const absent = ['create_a', 'create_b'].filter((id) => status[id]?.step === undefined);
  if (absent.length) return `no result of ${absent.join(', ')} in status`;
  const handled = Math.max(...['create_a', 'create_b', 'update_fn'].map((id) => status[id]?.step ?? 0));
  return handled === step ? null : `step ${step} not handled (the latest handled: ${handled})`;
}
