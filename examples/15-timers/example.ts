/**
 * Timers: called every few seconds for each object, but only once the object has not changed
 * for a while (`idle`): here after 5 and 10 seconds of quiet, then every 2 and 4 seconds.
 */
import { on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.timer(KopfExample, function every_few_seconds_sync({ spec, logger }) {
  logger.info(`Ping from a sync timer: field=${JSON.stringify(spec.field)}`);
}, { idle: 5, interval: 2 });

on.timer(KopfExample, async function every_few_seconds_async({ spec, logger }) {
  logger.info(`Ping from an async timer: field=${JSON.stringify(spec.field)}`);
}, { idle: 10, interval: 4 });
