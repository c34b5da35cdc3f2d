/**
 * The replicas of the failover tests: short leases and peer lifetimes (so that failovers take
 * seconds; `PEERING_LIFETIME` overrides the peering's), and a create handler that journals when it
 * starts and ends, and by whom, so that a test can check that no two replicas ever ran handlers at
 * the same time.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { on } from 'kopf';
import { KopfExample } from '../../../examples/kopfexample.ts';

const by = process.env.PEER_NAME ?? 'unnamed';
const journal = process.env.JOURNAL;

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
  settings.leaderElection.leaseDuration = 3;
  settings.leaderElection.renewDeadline = 2;
  settings.leaderElection.retryPeriod = 0.5;
  settings.peering.lifetime = Number(process.env.PEERING_LIFETIME ?? 3);
});

on.create(KopfExample, async function create_fn({ name }) {
  if (journal) appendFileSync(journal, `start ${by} ${name} ${Date.now()}\n`);
  await sleep(100);
  if (journal) appendFileSync(journal, `end ${by} ${name} ${Date.now()}\n`);
  return { by };
});
