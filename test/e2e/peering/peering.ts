/**
 * This runtime's side of the peering tests: each handler says which operator ran it (`PEER_NAME`),
 * as kopf_peering.py beside it does, so a test can tell who processed what.
 */
import { on } from 'kopf';
import { KopfExample } from '../../../examples/kopfexample.ts';

const by = process.env.PEER_NAME ?? 'unnamed';

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
});

on.create(KopfExample, function create_fn() {
  return { by };
});

on.update(KopfExample, function update_fn() {
  return { by };
});
