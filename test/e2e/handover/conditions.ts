/**
 * Beside handover.ts: this runtime with the status that tools read turned on. Python Kopf ignores
 * those fields; the handover must not notice them.
 */
import { on } from 'kopf';

on.startup(function tellTools({ settings }) {
  settings.status.conditions = true;
});
