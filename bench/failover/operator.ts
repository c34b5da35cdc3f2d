/** The failover benchmark's replica: one create handler that says which replica ran it. */
import { on } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

const by = process.env.PEER_NAME ?? 'unnamed';

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
  if (process.env.PEERING_LIFETIME) settings.peering.lifetime = Number(process.env.PEERING_LIFETIME);
});

on.create(KopfExample, function create_fn() {
  return { by };
});
