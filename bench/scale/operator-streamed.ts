/**
 * bench/burst's operator with its listings streamed as a watch's initial events
 * (`settings.watching.streamingLists` on): the scale benchmark's `streamed` contestant, beside `ts`
 * which reads them in pages.
 */
import { on } from 'kopf';
import '../burst/operator.ts';

on.startup(function streamed_lists({ settings }) {
  settings.watching.streamingLists = true;
});
