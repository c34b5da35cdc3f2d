/**
 * Several handlers for one cause, run in the order of registration; resume handlers for objects
 * found when the operator starts; and a field handler, called when `spec.field` changes
 * (including its first appearance, on creation) with the field's old and new values.
 */
import { on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.resume(KopfExample, function resume_fn_1() {
  console.log('RESUMED 1st');
});

on.create(KopfExample, function create_fn_1() {
  console.log('CREATED 1st');
});

on.resume(KopfExample, function resume_fn_2() {
  console.log('RESUMED 2nd');
});

on.create(KopfExample, function create_fn_2() {
  console.log('CREATED 2nd');
});

on.update(KopfExample, function update_fn({ diff }) {
  console.log(`UPDATED: ${JSON.stringify(diff)}`);
});

on.delete(KopfExample, function delete_fn_1() {
  console.log('DELETED 1st');
});

on.delete(KopfExample, function delete_fn_2() {
  console.log('DELETED 2nd');
});

on.field(KopfExample, function field_fn({ old, new: value }) {
  console.log(`FIELD CHANGED: ${old} -> ${value}`);
}, { field: 'spec.field' });
