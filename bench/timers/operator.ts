/**
 * The timers benchmark's operator on this runtime: per object, a timer every second that returns
 * nothing, and a daemon that sleeps in one-second steps until it is stopped; no Kubernetes events.
 * operator_kopf.py is the same operator for Python Kopf.
 */
import { on } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

on.startup(function configure({ settings, logger }) {
  settings.posting.enabled = false;
  logger.info('Configured for the timers benchmark.');
});

on.timer(KopfExample, function tick() {}, { interval: 1 });

on.daemon(KopfExample, async function accompany({ stopped }) {
  while (!(await stopped.wait(1)));
});
