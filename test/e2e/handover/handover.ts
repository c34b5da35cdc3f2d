/**
 * This runtime's side of the handover tests: the same handler ids and results as
 * kopf_handover.py beside it.
 */
import { on } from 'kopf';
import { KopfExample } from '../../../examples/kopfexample.ts';

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
});

on.create(KopfExample, function create_fn() {
  return { message: 'created' };
});

on.update(KopfExample, function update_fn() {
  return { message: 'updated' };
});

on.resume(KopfExample, function resume_fn() {});

on.delete(KopfExample, function delete_fn() {});
