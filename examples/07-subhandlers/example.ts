/**
 * Sub-handlers decided at handling time: one per item of `spec.items`, each tracked, retried
 * and reported by the framework as `create_fn/<item>`, like any other handler.
 */
import { on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.create(KopfExample, function create_fn({ spec, register }) {
  for (const item of spec.items ?? []) {
    register(async function create_item_fn() {
      console.log(`=== Handling creation for ${item}. ===`);
    }, { id: item });
  }
});
