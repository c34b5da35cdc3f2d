/**
 * The sharding benchmark's replica: creation and update handlers that wait 50 ms on an "external
 * call" (a timer), say which replica ran them in their results, and append each run to a journal
 * (`<replica> <handler> <object> <spec.field>` per line), from which the benchmark reads whether any
 * handler ran twice for one change.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { on } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

const by = process.env.REPLICA ?? 'unnamed';
const journal = process.env.JOURNAL;
const CALL_MS = 50;

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
});

function journaled(handler: string, name: string, field: unknown): void {
  if (journal) appendFileSync(journal, `${by} ${handler} ${name} ${String(field)}\n`);
}

on.create(KopfExample, async function create_fn({ name, spec }) {
  journaled('create_fn', name, spec.field);
  await sleep(CALL_MS);
  return { by };
});

on.update(KopfExample, async function update_fn({ name, spec }) {
  journaled('update_fn', name, spec.field);
  await sleep(CALL_MS);
  return { by, field: spec.field };
});
