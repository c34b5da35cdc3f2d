/**
 * Daemons: a task per object for as long as the object exists. Both fail their first three
 * attempts and are retried; then `background_sync` pings until it is stopped (it checks `stopped`
 * and sleeps with `stopped.wait()`), and `background_async` pings forever, relying on being
 * cancelled: its `signal` is aborted one second after it was told to stop, and it is given half a
 * second more to exit. Only objects with the annotation get `background_async`.
 */
import { setTimeout } from 'node:timers/promises';
import { on, TemporaryError } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

// This daemon exits after 3 attempts and then 30 seconds of running (unless stopped).
on.daemon(KopfExample, async function background_sync({ spec, stopped, logger, retry, patch }) {
  if (retry < 3) {
    patch.status.message = `Failed ${retry + 1} times.`;
    throw new TemporaryError('Simulated failure.', { delay: 1 });
  }
  const started = Date.now();
  while (!stopped.stopped && Date.now() - started <= 30_000) {
    logger.info(`=> Ping from a sync daemon: field=${JSON.stringify(spec.field)}, retry=${retry}`);
    await stopped.wait(5);
  }
  patch.status.message = 'Accompanying is finished.';
}, { backoff: 3 });

// This daemon runs until it is cancelled through its `signal`. Yet it fails to start 3 times.
on.daemon(KopfExample, async function background_async({ spec, logger, retry, signal }) {
  if (retry < 3) throw new TemporaryError('Simulated failure.', { delay: 1 });
  for (;;) {
    logger.info(`=> Ping from an async daemon: field=${JSON.stringify(spec.field)}`);
    await setTimeout(5_000, undefined, { signal });
  }
}, { backoff: 3, cancellationBackoff: 1.0, cancellationTimeout: 0.5, annotations: { someannotation: 'somevalue' } });
