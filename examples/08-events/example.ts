/**
 * Spying on raw watch events: event handlers store nothing on the object and are never
 * retried; an error in one is logged and ignored.
 */
import { on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.event(KopfExample, function event_fn_with_error() {
  throw new Error('Oops!');
});

on.event(KopfExample, function normal_event_fn({ event }) {
  console.log(`Event received: ${JSON.stringify({ type: event.type, name: event.object.metadata?.name })}`);
});
