/**
 * One call of a handler, of whatever kind: made inside its span, judged by its kind's rules, and
 * reported once through its observer; a judgement that throws (a cancellation) is reported
 * nowhere. The handlers of every kind are called here and nowhere else: no other file of the
 * runtime starts a handler's span or reports a handler's run.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { callHandler, type HandlerCall } from '../../../runtime/handling/calls.ts';
import { reportedUnder, type HandlerObserver } from '../../../runtime/handling/observers.ts';
import type { HandlerOutcome } from '../../../runtime/observation/metrics.ts';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
after(() => { trace.disable(); context.disable(); });

/** The runs an observer is told of, as lines: `id outcome timed`. */
function recording(): { observer: HandlerObserver; lines: string[] } {
  const lines: string[] = [];
  const observer: HandlerObserver = {
    ran: (id, outcome, seconds) => { lines.push(`${id} ${outcome} ${seconds === undefined ? 'untimed' : 'timed'}`); },
  };
  return { observer, lines };
}

/** A call whose outcome is what it returned, or the text of what it threw. */
function call(observer: HandlerObserver | undefined, named: (o: string) => HandlerOutcome): HandlerCall<string> {
  return {
    id: 'fn', retry: 2, cause: 'create', object: { kind: 'Thing', name: 'a', namespace: 'ns', uid: 'u' }, observer,
    returned: (result) => `returned ${String(result)}`,
    threw: (error) => `threw ${(error as Error).message}`,
    named,
  };
}

test('a call is judged by its kind and reported once, timed, under the outcome its kind names', async () => {
  const { observer, lines } = recording();
  const named = (o: string): HandlerOutcome => o.startsWith('returned') ? 'success' : o.endsWith('later') ? 'retry'
    : 'failure';
  assert.equal(await callHandler(call(observer, named), async () => 'ok'), 'returned ok');
  assert.equal(await callHandler(call(observer, named), async () => { throw new Error('later'); }), 'threw later');
  assert.equal(await callHandler(call(observer, named), async () => { throw new Error('never'); }), 'threw never');
  assert.equal(await callHandler(call(undefined, named), async () => 'unobserved'), 'returned unobserved');
  assert.deepEqual(lines, ['fn success timed', 'fn retry timed', 'fn failure timed']);
});

test('a judgement that throws (a cancellation) goes on up, and the run is reported nowhere', async () => {
  const { observer, lines } = recording();
  const cancelled = { ...call(observer, () => 'failure'), threw: (error: unknown): string => { throw error; } };
  await assert.rejects(callHandler(cancelled, async () => { throw new Error('cancelled'); }), /cancelled/);
  assert.deepEqual(lines, []);
});

test('sub-handlers are reported under their top-level handler\'s id, at any depth', () => {
  const { observer, lines } = recording();
  const child = reportedUnder(observer, 'create_fn');
  reportedUnder(child, 'create_fn/item-1')?.ran('create_fn/item-1/sub', 'retry', 0.1);
  child?.ran('create_fn/item-2', 'success', undefined);
  assert.deepEqual(lines, ['create_fn retry timed', 'create_fn success untimed']);
  assert.equal(reportedUnder(undefined, 'create_fn'), undefined);
});

test('the call\'s span has the handler\'s id, its retry, its cause and its object; an error marks it', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  try {
    await callHandler(call(undefined, () => 'success'), async () => undefined);
    await callHandler(call(undefined, () => 'failure'), async () => { throw new Error('boom'); });
    const [passed, failed] = exporter.getFinishedSpans();
    assert.equal(passed?.name, 'kopf.handler');
    assert.deepEqual({ ...passed?.attributes }, {
      'kopf.handler.id': 'fn', 'kopf.retry': 2, 'kopf.cause': 'create',
      'kopf.object.kind': 'Thing', 'k8s.namespace.name': 'ns', 'kopf.object.name': 'a', 'kopf.object.uid': 'u',
    });
    assert.equal(passed?.status.code, 0);
    assert.equal(failed?.status.message, 'boom');
  } finally {
    await provider.shutdown();
    trace.disable();
  }
});

/** The runtime's TypeScript files, as paths relative to the repository. */
function runtimeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? runtimeFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('no other file of the runtime starts a handler\'s span or reports a handler\'s run', () => {
  const root = join(import.meta.dirname, '../../..');
  const makers: Record<string, string[]> = { 'startHandlerSpan(': [], '.handlerRun(': [] };
  for (const path of runtimeFiles(join(root, 'runtime'))) {
    const text = readFileSync(path, 'utf8');
    for (const [call, found] of Object.entries(makers)) if (text.includes(call)) found.push(relative(root, path));
  }
  for (const found of Object.values(makers)) found.sort();
  // tracing.ts defines the span; the metrics implement the run's report; observers.ts is the one port to it.
  assert.deepEqual(makers, {
    'startHandlerSpan(': ['runtime/handling/calls.ts', 'runtime/observation/tracing.ts'],
    '.handlerRun(': ['runtime/handling/observers.ts'],
  });
});
