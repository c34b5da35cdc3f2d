/**
 * The admission benchmark's operator on this runtime: one validating and one mutating handler,
 * served by the operator with a generated certificate, configurations managed; no events.
 * operator_kopf.py is the same operator for Python Kopf. Objects labelled `probe` are refused,
 * saying what the mutator injected: the benchmark waits for that before it measures.
 */
import { AdmissionError, WebhookServer, on } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
  settings.admission.server = new WebhookServer({ addr: '127.0.0.1' });
  settings.admission.managed = 'bench.kopf.dev';
});

on.validate(KopfExample, function validate_fn({ spec, labels }) {
  if (labels.probe) throw new AdmissionError(`probed, injected ${String(spec.injected)}`, 403);
  if (spec.field === 'wrong') throw new AdmissionError('The field is wrong.', 422);
});

on.mutate(KopfExample, function mutate_fn({ patch }) {
  patch.spec.injected = 123;
});
