/**
 * What the processing logs with `--verbose`, and the message a handler that runs out of retries
 * leaves in its record, against a real run of Python Kopf 1.44 (fixtures/kopf/verbose-run.json,
 * made by scripts/kopf-verbose-run.ts with the handlers of fixtures/kopf/verbose-run/operator.py,
 * which the handlers here copy).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TemporaryError } from '../../../runtime/structs/errors.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import type { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { levelName } from '../../../runtime/logging/levels.ts';
import type { LogRecord } from '../../../runtime/logging/index.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { FRESH, processOnce } from './processor.ts';

interface Run {
  lines: { level: string; message: string }[];
  records: { handler: string; record: Record<string, unknown> }[];
}
const RUN = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'kopf', 'verbose-run.json'), 'utf8')
) as Run;
const FINALIZER = 'kopf.zalando.org/KopfFinalizerMarker';
const PREFIX = 'kopf.zalando.org/';

/** The handlers of the fixture's operator. */
function register(registry: OperatorRegistry): void {
  registry.on.create(KopfExample, function fails() { throw new Error('boom'); }, { retries: 1 });
  registry.on.create(
    KopfExample,
    function flaky({ retry }) { if (retry < 1) throw new Error('once'); },
    { backoff: 0 },
  );
  registry.on.create(
    KopfExample,
    function slow({ retry }) { if (retry < 1) throw new TemporaryError('wait', { delay: 1 }); },
  );
  registry.on.update(KopfExample, function updated() {});
  registry.on.delete(KopfExample, function gone() {});
}

function kopfLevel(message: string): string {
  const line = RUN.lines.find((l) => l.message === message);
  assert.ok(line, `Kopf did not log "${message}"`);
  return line.level;
}

function ownLevel(records: readonly LogRecord[], message: string): string {
  const record = records.find((r) => r.message === message);
  assert.ok(record, `not logged: "${message}"; logged: ${records.map((r) => r.message).join('\n')}`);
  return levelName(record.level).toLowerCase();
}

/** The object with the finalizer and Kopf's own records of the handlers named. */
function withKopfRecords(...handlers: string[]): KubeObject {
  const annotations: Record<string, string> = {};
  for (const handler of handlers) {
    const last = RUN.records.filter((r) => r.handler === handler).at(-1);
    assert.ok(last, `no record of ${handler} in the fixture`);
    annotations[PREFIX + handler] = JSON.stringify(last.record);
  }
  return { ...FRESH, metadata: { ...FRESH.metadata, finalizers: [FINALIZER], annotations } };
}

function annotationsOf(patches: unknown[]): Record<string, string | null> {
  return Object.assign(
    {},
    ...patches.map((p) => (p as { metadata?: { annotations?: object } }).metadata?.annotations ?? {})
  ) as Record<string, string | null>;
}

test('the finalizer is added and removed with debug messages, as Kopf logs them', async () => {
  const added = await processOnce(register, FRESH);
  const message = 'Adding the finalizer, thus preventing the actual deletion.';
  assert.equal(ownLevel(added.records, message), kopfLevel(message));
  const deleting: KubeObject = {
    ...FRESH,
    metadata: {
      ...FRESH.metadata,
      finalizers: [FINALIZER],
      deletionTimestamp: '2026-11-25T14:20:14Z',
      annotations: { [`${PREFIX}last-handled-configuration`]: '{"spec":{"field":"v"}}\n' },
    },
  };
  const removed = await processOnce(register, deleting);
  const removal = 'Removing the finalizer, thus allowing the actual deletion.';
  assert.equal(ownLevel(removed.records, removal), kopfLevel(removal));
});

test('a deletion that removes the finalizer does not announce waiting for new changes, as Kopf does not', async () => {
  const finished = 'Handling cycle is finished, waiting for new changes.';
  const removing = 'Removing the finalizer, thus allowing the actual deletion.';
  const removal = RUN.lines.findIndex((l) => l.message === removing);
  assert.ok(removal >= 0, 'the fixture has no removal of the finalizer');
  assert.deepEqual(RUN.lines.slice(removal).filter((l) => l.message === finished), []);
  const annotations = { [`${PREFIX}last-handled-configuration`]: '{"spec":{"field":"v"}}\n' };
  const deletionTimestamp = '2026-11-25T14:20:14Z';
  const metadata = { ...FRESH.metadata, finalizers: [FINALIZER], deletionTimestamp, annotations };
  const deleting: KubeObject = { ...FRESH, metadata };
  const { messages } = await processOnce(register, deleting);
  assert.ok(messages.includes('Deletion is processed: 1 succeeded; 0 failed.'), messages.join('\n'));
  assert.deepEqual(messages.filter((m) => m === finished), []);
});

test('a creation logs no diff; an update does, as Kopf logs them', async () => {
  const kopfDiffs = RUN.lines.filter((l) => / diff: /.test(l.message)).map((l) => l.message.split(':')[0]);
  assert.deepEqual(kopfDiffs, ['Updating diff']);
  const created = await processOnce(register, withKopfRecords());
  assert.ok(created.messages.some((m) => m.startsWith('Creation is in progress:')), created.messages.join('\n'));
  assert.deepEqual(created.messages.filter((m) => / diff: /.test(m)), []);
  const changed: KubeObject = {
    ...FRESH,
    metadata: {
      ...FRESH.metadata,
      finalizers: [FINALIZER],
      annotations: { [`${PREFIX}last-handled-configuration`]: '{"spec":{"field":"value"}}\n' },
    },
  };
  const updated = await processOnce(register, changed);
  assert.deepEqual(updated.messages.filter((m) => / diff: /.test(m)).map((m) => m.split(':')[0]), kopfDiffs);
});

test('a handler out of retries stores the message Kopf stores', async () => {
  const kopfRecord = RUN.records.find((r) => r.handler === 'fails' && r.record['failure'] === true);
  assert.ok(kopfRecord, 'the fixture has no failed record of `fails`');
  const { patches, records } = await processOnce(register, withKopfRecords());
  const stored = annotationsOf(patches)[`${PREFIX}fails`];
  assert.ok(stored, `no record of 'fails' written: ${JSON.stringify(patches)}`);
  const record = JSON.parse(stored) as Record<string, unknown>;
  assert.equal(record['message'], kopfRecord.record['message']);
  assert.deepEqual(
    { retries: record['retries'], success: record['success'], failure: record['failure'] },
    {
      retries: kopfRecord.record['retries'],
      success: kopfRecord.record['success'],
      failure: kopfRecord.record['failure'],
    },
  );
  const logged = records.find((r) => r.message.startsWith("Handler 'fails' failed"));
  assert.equal(logged?.message, kopfRecord.record['message']);
});

test('a zero-second retry after a patch is not announced as skipped sleep, as Kopf does not', async () => {
  // Kopf's lines from the zero-backoff failure to the next cycle: no "Sleeping was skipped".
  const from = RUN.lines.findIndex((l) => l.message.includes('will try again in 0 seconds'));
  const to = RUN.lines.findIndex((l, i) => i > from && l.message.startsWith('Creation is in progress:'));
  assert.ok(from >= 0 && to > from, 'the fixture has no zero-second retry');
  assert.deepEqual(RUN.lines.slice(from, to).filter((l) => l.message.startsWith('Sleeping')), []);
  assert.ok(
    RUN.lines.some((l) => /^Sleeping was skipped because of the patch, 0\.\d+ seconds left\.$/.test(l.message)),
    'Kopf announces a positive one',
  );

  const { messages } = await processOnce(register, withKopfRecords('fails'));
  assert.ok(
    messages.includes("Handler 'flaky' failed with an exception and will try again in 0 seconds: once"),
    messages.join('\n'),
  );
  assert.deepEqual(messages.filter((m) => m.startsWith('Sleeping')), []);
});
