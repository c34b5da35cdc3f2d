/**
 * bench/burst's operator with its listings read in pages (`settings.watching.streamingLists` off),
 * as Kopf reads them: the scale benchmark's `paged` contestant, beside `ts` which streams them.
 */
import { on } from 'kopf';
import '../burst/operator.ts';

on.startup(function paged_lists({ settings }) {
  settings.watching.streamingLists = false;
});
