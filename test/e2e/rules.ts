/**
 * Kopf's end-to-end rules for its examples, and the scenario they are checked on — one way to do
 * it, used by every example test, for this runtime and for Python Kopf alike.
 *
 * The scenario (Kopf's generic example test): run the operator cluster-wide, standalone, verbose;
 * create examples/obj.yaml; wait until the creation is handled; delete it; wait until the deletion is
 * handled; stop the operator with SIGTERM. The rules, on the operator's output and the object:
 *   - the operator exits with 0, by itself, after SIGTERM;
 *   - "Creation is in progress:" when the example has a create handler;
 *   - "Adding the finalizer" exactly when it has a mandatory delete handler, a timer or a daemon, and
 *     the finalizer is on the object then and only then; "Deletion is in progress:" exactly when it
 *     has a mandatory delete handler;
 *   - "Deleted, really deleted" when it has create/update/delete handlers;
 *   - no tracebacks unless allowed;
 *   - every handler that succeeded, succeeded exactly once (or as often as the example declares);
 *   - no handler failed for good (or exactly as the example declares).
 * Where Kopf's test sleeps for a fixed time, this one waits for the log lines and object states
 * that mark the end of each step.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../runtime/testing.ts';
import type { KubeObject } from '../../runtime/structs/resources.ts';
import { runOperator, type OperatorExit, type RunningOperator } from '../../runtime/testing/runner.ts';
import { KopfExample } from '../../examples/kopfexample.ts';
import { Cluster, loadYaml, refOf, type ObjectRef } from './cluster.ts';
import { kopfRunCommand } from './pykopf.ts';

export const EXAMPLES_DIR = join(import.meta.dirname, '..', '..', 'examples');
export const OBJECT_YAML = join(EXAMPLES_DIR, 'obj.yaml');
export const CRD_YAML = join(EXAMPLES_DIR, 'crd.yaml');

/** Kopf's key prefix for everything it stores on objects, and the keys this test knows. */
export const KOPF_PREFIX = 'kopf.zalando.org/';
export const DIFF_BASE = `${KOPF_PREFIX}last-handled-configuration`;
export const FINALIZER = `${KOPF_PREFIX}KopfFinalizerMarker`;

/** What an example is made of, as far as the rules care; `handlersOf()` reads it from the source. */
export interface ExampleHandlers {
  onCreate: boolean;
  /** create, update or delete handlers: the object's lifecycle is handled and logged. */
  changing: boolean;
  /** A delete handler that is not `optional`: the finalizer is needed. */
  mandatoryOnDelete: boolean;
  /** Timers or daemons: the finalizer is needed too (they are stopped before the object goes). */
  spawning: boolean;
}

/** Whether the example's operator puts its finalizer on the object. */
export function needsFinalizer(handlers: ExampleHandlers): boolean {
  return handlers.mandatoryOnDelete || handlers.spawning;
}

export interface ExampleRules {
  handlers: ExampleHandlers;
  /** Handler ids whose successes are counted, with their counts; others are not checked. Default: all once. */
  successCounts?: Record<string, number>;
  /** Handler ids whose final failures are counted, with their counts. Default: none may fail. */
  failureCounts?: Record<string, number>;
  allowTracebacks?: boolean;
}

export interface ScenarioOptions {
  cluster: Cluster;
  kubeconfigPath: string;
  /** The operator's files (the example, or its Python twin). */
  files: string[];
  /** The command up to `run`: this runtime's CLI by default; `kopfRunCommand()` for Python Kopf. */
  command?: string[];
  rules: ExampleRules;
  /** Arguments of `run` after the scenario's own (`--all-namespaces --standalone --verbose`). */
  args?: string[];
  /** All must appear (in any order) before the object is created. Default: the watch on KopfExamples started. */
  startupStopWords?: Pattern[];
  /** All must appear before the object is deleted. Default: "Creation is processed:" (if there is a create handler). */
  creationStopWords?: Pattern[];
  /** All must appear before the operator is stopped. Default: "Deleted, really deleted" (if changing). */
  deletionStopWords?: Pattern[];
  /** Steps between the creation and the deletion (e.g. an update). */
  afterCreation?: (context: ScenarioContext) => Promise<void>;
  /** What the cluster holds before the operator starts (other objects the example serves). */
  beforeStart?: (cluster: Cluster) => Promise<void>;
  /** Per step, in ms; 30 s by default. */
  stepTimeout?: number;
}

export interface ScenarioContext {
  operator: RunningOperator;
  cluster: Cluster;
  ref: ObjectRef;
  /** Waits for all patterns in the output printed since the step began. */
  waitForAll(patterns: Pattern[]): Promise<void>;
}

export interface ScenarioResult extends OperatorExit {
  /** The object right after the creation was handled (as the operator left it). */
  created: KubeObject;
}

type Pattern = RegExp | string;

const OBJECT_PREFIX = '[default/kopf-example-1] ';

/** Runs the scenario and returns what the operator printed; the rules are checked separately. */
export async function runExampleScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const { cluster, rules, stepTimeout = 30_000 } = options;
  const [object] = loadYaml(OBJECT_YAML);
  assert.ok(object, `${OBJECT_YAML} holds no object`);
  const ref = refOf(object);
  await cluster.purge(KopfExample, ref);
  await options.beforeStart?.(cluster);
  const operator = runOperator({
    command: options.command,
    args: ['--all-namespaces', '--standalone', '--verbose', ...options.args ?? []],
    files: options.files,
    kubeconfigPath: options.kubeconfigPath,
  });
  try {
    let mark = 0;
    const waitForAll = async (patterns: Pattern[]): Promise<void> => {
      for (const pattern of patterns) await operator.waitFor(pattern, { since: mark, timeout: stepTimeout });
    };
    const step = async (patterns: Pattern[], action: () => Promise<void>): Promise<void> => {
      mark = operator.lines.length;
      await action();
      await waitForAll(patterns);
    };
    await waitForAll(options.startupStopWords ?? [/Starting the watch-stream for kopfexamples\.v1\.kopf\.dev/]);

    await step(options.creationStopWords ?? (rules.handlers.onCreate ? ['Creation is processed:'] : []), async () => {
      await cluster.create(KopfExample, object);
    });
    // The log line comes before the patch that ends the cycle: wait for the object to show it.
    const created = rules.handlers.changing
      ? await cluster.waitFor(KopfExample, ref, (o) => o !== null && isHandled(o), { timeout: stepTimeout })
      : needsFinalizer(rules.handlers)
        ? await cluster.waitFor(
          KopfExample,
          ref,
          (o) => Boolean(o?.metadata?.finalizers?.includes(FINALIZER)),
          { timeout: stepTimeout },
        )
        : await cluster.read(KopfExample, ref);
    assert.ok(created, 'the object vanished before it was deleted');
    if (options.afterCreation)
      await options.afterCreation(
        { operator, cluster, ref, waitForAll: (p) => { mark = operator.lines.length; return waitForAll(p); } }
      );

    await step(options.deletionStopWords ?? (rules.handlers.changing ? ['Deleted, really deleted'] : []), async () => {
      await cluster.delete(KopfExample, ref);
      await cluster.waitForGone(KopfExample, ref, { timeout: stepTimeout });
    });
    // Declared counts are the last thing to happen: wait for them rather than stop too early.
    for (const [id, count] of Object.entries(rules.successCounts ?? {})) {
      if (count > 0) await operator.waitFor(successLine(id), { count, timeout: stepTimeout });
    }
    for (const [id, count] of Object.entries(rules.failureCounts ?? {})) {
      if (count > 0) await operator.waitFor(failureLine(id), { count, timeout: stepTimeout });
    }
    return { ...(await operator.stop()), created };
  } finally {
    await operator.stop();
  }
}

export type ExampleTestOptions = Omit<ExampleRules, 'handlers'> &
  Pick<ScenarioOptions, 'args' | 'beforeStart' | 'startupStopWords' | 'creationStopWords' | 'deletionStopWords'> &
  Pick<ScenarioOptions, 'afterCreation'> & {
    /** Checks of the example's own, after the rules. */
    check?: (result: ScenarioResult) => void;
  };

/** An example's control plane and the test's hands on it (`Cluster`, as a user with kubectl). */
export interface ExamplePlane {
  readonly cp: ControlPlane;
  readonly cluster: Cluster;
}

/**
 * A local control plane with the KopfExample CRD, started before the file's tests and stopped after
 * them; its fields are there once the tests run.
 */
export function useExamplePlane(): ExamplePlane {
  const plane = {} as { cp: ControlPlane; cluster: Cluster };
  before(async () => {
    plane.cp = await startControlPlane();
    await plane.cp.installCrds([CRD_YAML]);
    plane.cluster = new Cluster(plane.cp.kubeconfigPath);
  });
  after(async () => {
    plane.cluster?.close();
    await plane.cp?.stop();
  });
  return plane;
}

/**
 * The tests of an example folder: on one local control plane, the scenario and the rules for
 * its `example.ts` on this runtime, then for its `kopf_twin.py` on Python Kopf 1.44 — the same
 * rules passing on both is what makes this a port.
 */
export function testExample(dir: string, options: ExampleTestOptions = {}): void {
  const { check, args, beforeStart, startupStopWords, creationStopWords, deletionStopWords, afterCreation, ...counts } =
    options;
  const rules: ExampleRules = { ...counts, handlers: exampleHandlers(dir) };
  const name = basename(dir);
  const plane = useExamplePlane();
  const scenario = async (files: string[], command?: string[]): Promise<void> => {
    const result = await runExampleScenario({
      cluster: plane.cluster,
      kubeconfigPath: plane.cp.kubeconfigPath,
      files,
      command,
      rules,
      creationStopWords,
      deletionStopWords,
      afterCreation,
      beforeStart, args, startupStopWords,
    });
    checkExampleRules(result, rules);
    check?.(result);
  };
  test(`${name}: Kopf's example rules hold for the TypeScript operator`, async () => {
    await scenario([join(dir, 'example.ts')]);
  });
  test(`${name}: the same rules hold for Python Kopf 1.44 on its twin`, async () => {
    await scenario([join(dir, 'kopf_twin.py')], await kopfRunCommand());
  });
}

/** Checks Kopf's e2e rules on a finished scenario; fails with the whole output for context. */
export function checkExampleRules(result: ScenarioResult, rules: ExampleRules): void {
  const output = result.output;
  const context = `\n--- operator output ---\n${output}\n---`;
  const { handlers } = rules;
  assert.equal(result.signal, null, `the operator was killed by ${result.signal}${context}`);
  assert.equal(result.exitCode, 0, `the operator exited with ${result.exitCode}${context}`);

  const has = (text: string): boolean => output.includes(OBJECT_PREFIX + text);
  const finalizer = needsFinalizer(handlers);
  assert.equal(
    has('Adding the finalizer'),
    finalizer,
    `"Adding the finalizer" ${finalizer ? 'missing' : 'unexpected'}${context}`,
  );
  const finalizers = result.created.metadata?.finalizers ?? [];
  assert.equal(
    finalizers.includes(FINALIZER),
    finalizer,
    `finalizers on the created object: ${JSON.stringify(finalizers)}`,
  );
  if (handlers.onCreate) assert.ok(has('Creation is in progress:'), `"Creation is in progress:" missing${context}`);
  assert.equal(
    has('Deletion is in progress:'),
    handlers.mandatoryOnDelete,
    `"Deletion is in progress:" ${handlers.mandatoryOnDelete ? 'missing' : 'unexpected'}${context}`,
  );
  if (handlers.changing) assert.ok(has('Deleted, really deleted'), `"Deleted, really deleted" missing${context}`);
  if (!rules.allowTracebacks) assert.equal(tracebackIn(output), null, `a traceback in the output${context}`);

  // Anchored at the start of a log message, so that handler messages quoted inside logged bodies
  // (stored progress records carry them) are not counted as log lines of their own.
  const succeeded = countIds(output, /(?:^|\] )(?:Handler|Activity) '(.+?)' succeeded\./gm);
  if (rules.successCounts) {
    assert.deepEqual(only(succeeded, rules.successCounts), rules.successCounts, `success counts${context}`);
  } else {
    const repeated = Object.entries(succeeded).filter(([, n]) => n !== 1);
    assert.deepEqual(repeated, [], `handlers that succeeded more than once${context}`);
    assert.ok(Object.keys(succeeded).length > 0, `no handler succeeded${context}`);
  }
  const failed = countIds(
    output,
    /(?:^|\] )(?:Handler|Activity) '(.+?)' failed (?:permanently|with an exception and will stop)/gm,
  );
  assert.deepEqual(
    rules.failureCounts ? only(failed, rules.failureCounts) : failed,
    rules.failureCounts ?? {},
    `handlers that failed for good${context}`,
  );

  if (handlers.changing) checkHandledObject(result.created);
}

/** After a complete cycle: the diff-base is stored and no handler progress is left behind. */
export function checkHandledObject(object: KubeObject): void {
  const annotations = object.metadata?.annotations ?? {};
  assert.ok(annotations[DIFF_BASE], `no ${DIFF_BASE} on the object: ${JSON.stringify(object.metadata)}`);
  assert.deepEqual(progressKeys(object), [], 'handler progress left on the object');
}

/** Annotations of Kopf's handler progress (everything Kopf stores except the diff-base). */
export function progressKeys(object: KubeObject): string[] {
  return Object.keys(object.metadata?.annotations ?? {}).filter(
    (key) => key.startsWith(KOPF_PREFIX) && key !== DIFF_BASE
  );
}

/** The diff-base is written when a cycle is done; then the progress annotations are gone. */
export function isHandled(object: KubeObject): boolean {
  return Boolean(object.metadata?.annotations?.[DIFF_BASE]) && progressKeys(object).length === 0;
}

/**
 * Which kinds of handlers an example registers, read from its source as Kopf's test reads
 * decorators from the Python AST: `on.create(`, `on.update(`, `on.delete(`, `on.timer(`,
 * `on.daemon(` calls, and whether a delete handler's call says `optional: true`.
 */
export function handlersOf(source: string): ExampleHandlers {
  const calls = (kind: string): string[] => {
    const found: string[] = [];
    const re = new RegExp(`\\bon\\.${kind}\\(`, 'g');
    for (let match = re.exec(source); match; match = re.exec(source))
      found.push(callText(source, match.index + match[0].length));
    return found;
  };
  const creates = calls('create');
  const updates = calls('update');
  const deletes = calls('delete');
  return {
    onCreate: creates.length > 0,
    changing: creates.length + updates.length + deletes.length > 0,
    mandatoryOnDelete: deletes.some((call) => !/\boptional\s*:\s*true\b/.test(call)),
    spawning: calls('timer').length + calls('daemon').length > 0,
  };
}

/** `handlersOf` for an example folder's `example.ts`. */
export function exampleHandlers(dir: string): ExampleHandlers {
  return handlersOf(readFileSync(join(dir, 'example.ts'), 'utf8'));
}

/** A Python traceback, or a JavaScript stack frame, in the output; `null` if none. */
export function tracebackIn(output: string): string | null {
  const match = /^Traceback \(most recent call last\):$|^\s+at .+(?::\d+:\d+\)?|\(native\)|\(<anonymous>\))$/m.exec(
    output
  );
  return match ? match[0] : null;
}

export function successLine(id: string): RegExp {
  return new RegExp(`'${escape(id)}' succeeded`);
}

export function failureLine(id: string): RegExp {
  return new RegExp(`'${escape(id)}' failed (?:permanently|with an exception and will stop)`);
}

/** The text of a call's arguments, from just after its opening parenthesis to the matching one. */
function callText(source: string, start: number): string {
  let depth = 1;
  for (let i = start; i < source.length; i++) {
    if (source[i] === '(') depth++;
    else if (source[i] === ')' && --depth === 0) return source.slice(start, i);
  }
  return source.slice(start);
}

function countIds(output: string, re: RegExp): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const match of output.matchAll(re)) counts[match[1]!] = (counts[match[1]!] ?? 0) + 1;
  return counts;
}

function only(counts: Record<string, number>, declared: Record<string, number>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const id of Object.keys(declared)) if (counts[id]) result[id] = counts[id]!;
  // A declared count of 0 means "never": keep it comparable.
  for (const [id, n] of Object.entries(declared)) if (n === 0 && !counts[id]) result[id] = 0;
  return result;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
