/**
 * This runtime's side of the sub-handler handover test: a sub-handler per item of the object, its
 * id the item itself (docs/handlers.md's `{ id: item }`), as in kopf_subhandlers.py beside it.
 * The item `kopf-only` is left to Kopf (it fails here until Kopf takes over); every run is logged
 * with the item's position, never with the item, which may hold anything.
 */
import { on, TemporaryError } from 'kopf';
import { KopfExample } from '../../../examples/kopfexample.ts';

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
});

on.create(KopfExample, function create_items({ spec, register }) {
  (spec.items ?? []).forEach((item, position) => {
    register(async function create_item({ logger }) {
      if (item === 'kopf-only') throw new TemporaryError('Left to Kopf.', { delay: 1 });
      logger.info(`Ran the sub-handler of item #${position}.`);
    }, { id: item });
  });
});
