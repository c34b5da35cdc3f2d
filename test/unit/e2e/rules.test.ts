import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { checkExampleRules, handlersOf, tracebackIn, type ExampleRules, type ScenarioResult } from '../../e2e/rules.ts';

const DIFF_BASE = 'kopf.zalando.org/last-handled-configuration';
const handled = { metadata: { name: 'kopf-example-1', annotations: { [DIFF_BASE]: '{}\n' } } };

function result(output: string, created: KubeObject = handled): ScenarioResult {
  return { exitCode: 0, signal: null, output, created };
}

const MINIMAL: ExampleRules = {
  handlers: { onCreate: true, changing: true, mandatoryOnDelete: false, spawning: false }
};
const MINIMAL_OUTPUT = [
  "[default/kopf-example-1] Creation is in progress: {...}",
  "[default/kopf-example-1] Handler 'create_fn' succeeded.",
  "[default/kopf-example-1] Creation is processed: 1 succeeded; 0 failed.",
  "[default/kopf-example-1] Deleted, really deleted, and we are notified.",
].join('\n');

test('reads the kinds of handlers from an example source', () => {
  assert.deepEqual(
    handlersOf(`on.create(KopfExample, async function create_fn() {});`),
    { onCreate: true, changing: true, mandatoryOnDelete: false, spawning: false },
  );
  assert.deepEqual(
    handlersOf(`on.event(KopfExample, function normal_event_fn() {});`),
    { onCreate: false, changing: false, mandatoryOnDelete: false, spawning: false },
  );
  assert.deepEqual(
    handlersOf(`on.delete(KopfExample, async function delete_fn() { f(1, (2)); }, { optional: true });`),
    { onCreate: false, changing: true, mandatoryOnDelete: false, spawning: false },
  );
  assert.deepEqual(
    handlersOf(
      `on.delete(KopfExample, async function a() {}, { optional: true });\non.delete(KopfExample, async function ` +
        `b() {});`
    ).mandatoryOnDelete,
    true,
  );
  assert.deepEqual(
    handlersOf(`on.update(KopfExample, async function update_fn() {});`),
    { onCreate: false, changing: true, mandatoryOnDelete: false, spawning: false },
  );
  assert.deepEqual(
    handlersOf(`on.timer(KopfExample, function tick() {}, { interval: 1 });`),
    { onCreate: false, changing: false, mandatoryOnDelete: false, spawning: true },
  );
  assert.equal(handlersOf(`on.daemon(KopfExample, async function watch() {});`).spawning, true);
});

test('timers and daemons need the finalizer: an example with them passes only with it', () => {
  const rules: ExampleRules = {
    handlers: { onCreate: false, changing: false, mandatoryOnDelete: false, spawning: true },
    successCounts: {},
  };
  const output =
    "[default/kopf-example-1] Adding the finalizer, thus preventing the actual deletion.\n[default/kopf-example-1] " +
      "Timer 'tick' succeeded.";
  const withFinalizer = { metadata: { name: 'kopf-example-1', finalizers: ['kopf.zalando.org/KopfFinalizerMarker'] } };
  checkExampleRules(result(output, withFinalizer), rules);
  assert.throws(() => checkExampleRules(result(output, { metadata: { name: 'kopf-example-1' } }), rules), /finalizers/);
  assert.throws(() => checkExampleRules(result(output.split('\n')[1]!, withFinalizer), rules), /Adding the finalizer/);
});

test('finds Python tracebacks and JavaScript stack frames, not ordinary lines', () => {
  assert.equal(
    tracebackIn('ok\nTraceback (most recent call last):\n  File "x.py"'),
    'Traceback (most recent call last):',
  );
  assert.match(
    tracebackIn('Error: boom\n    at create_fn (file:///work/main/examples/03/example.ts:10:11)') ?? '',
    /at create_fn/,
  );
  assert.match(tracebackIn('Error: boom\n    at file:///x.ts:1:2') ?? '', /at file/);
  assert.equal(tracebackIn("Handler 'x' succeeded.\nlooking at the diff"), null);
});

test('a minimal example that behaves passes', () => {
  checkExampleRules(result(MINIMAL_OUTPUT), MINIMAL);
});

test('a handler that succeeded twice fails the rules', () => {
  const output = MINIMAL_OUTPUT + "\n[default/kopf-example-1] Handler 'create_fn' succeeded.";
  assert.throws(() => checkExampleRules(result(output), MINIMAL), /more than once/);
});

test('a finalizer without a mandatory delete handler fails the rules', () => {
  assert.throws(
    () => checkExampleRules(
      result('[default/kopf-example-1] Adding the finalizer, thus preventing the actual deletion.\n' + MINIMAL_OUTPUT),
      MINIMAL,
    ),
    /Adding the finalizer/,
  );
  const withFinalizer = { metadata: { ...handled.metadata, finalizers: ['kopf.zalando.org/KopfFinalizerMarker'] } };
  assert.throws(() => checkExampleRules(result(MINIMAL_OUTPUT, withFinalizer), MINIMAL), /finalizers/);
});

test('a missing creation or deletion message fails the rules', () => {
  assert.throws(
    () => checkExampleRules(result(MINIMAL_OUTPUT.replace('Creation is in progress', 'Something')), MINIMAL),
    /Creation is in progress/,
  );
  assert.throws(
    () => checkExampleRules(result(MINIMAL_OUTPUT.replace('Deleted, really deleted', 'Gone')), MINIMAL),
    /really deleted/,
  );
});

test('a non-zero exit or a kill fails the rules', () => {
  assert.throws(() => checkExampleRules({ ...result(MINIMAL_OUTPUT), exitCode: 1 }, MINIMAL), /exited with 1/);
  assert.throws(
    () => checkExampleRules({ ...result(MINIMAL_OUTPUT), exitCode: null, signal: 'SIGKILL' }, MINIMAL),
    /killed by SIGKILL/,
  );
});

test('a handler failure is allowed only as declared', () => {
  const output = MINIMAL_OUTPUT + "\n[default/kopf-example-1] Handler 'other_fn' failed permanently: nope";
  assert.throws(() => checkExampleRules(result(output), MINIMAL), /failed for good/);
  checkExampleRules(result(output), { ...MINIMAL, failureCounts: { other_fn: 1 } });
  assert.throws(
    () => checkExampleRules(result(output), { ...MINIMAL, failureCounts: { other_fn: 2 } }),
    /failed for good/,
  );
});

test('declared success counts are checked for the declared ids only', () => {
  const output = MINIMAL_OUTPUT
    + "\n[default/kopf-example-1] Handler 'normal_event_fn' succeeded.\n[default/kopf-example-1] Handler " +
      "'normal_event_fn' succeeded.";
  checkExampleRules(result(output), { ...MINIMAL, successCounts: { normal_event_fn: 2 } });
  assert.throws(
    () => checkExampleRules(result(output), { ...MINIMAL, successCounts: { normal_event_fn: 1 } }),
    /success counts/,
  );
});

test('progress left on the object fails the rules', () => {
  const leftover = {
    metadata: { annotations: { [DIFF_BASE]: '{}\n', 'kopf.zalando.org/create_fn': '{"retries":1}' } }
  };
  assert.throws(() => checkExampleRules(result(MINIMAL_OUTPUT, leftover), MINIMAL), /progress left/);
  assert.throws(
    () => checkExampleRules(result(MINIMAL_OUTPUT, { metadata: {} }), MINIMAL),
    /last-handled-configuration/,
  );
});
