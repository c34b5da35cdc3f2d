/**
 * Beside operator.ts for the `ts+conditions` contestant: the status that tools read, turned on.
 */
import { on } from 'kopf';

on.startup(function tellTools({ settings }) {
  settings.status.conditions = true;
});
