/**
 * Admission webhooks: validating handlers that refuse with a message and a code, add warnings and
 * look at the API server's request (headers, client certificate, dry run), a field-filtered one,
 * one for every subresource, and a label-filtered mutating handler. The operator serves them over
 * HTTPS with a certificate made at start, and manages the webhook configurations `auto.kopf.dev`.
 * (Kopf's example also shows tunnels and cluster-specific servers; see docs/webhooks.md.)
 */
import { AdmissionError, WebhookServer, on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.startup(function config({ settings }) {
  // A local endpoint with a generated certificate; the local control plane reaches it on loopback.
  settings.admission.server = new WebhookServer();
  settings.admission.managed = 'auto.kopf.dev';
});

on.validate(KopfExample, function authhook({ headers, sslpeer, warnings }) {
  const userAgent = headers['user-agent'] ?? '(unidentified)';
  warnings.push(`Accessing as user-agent: ${userAgent}`);
  const subject = sslpeer.subject as Record<string, string> | undefined;
  if (!subject) warnings.push('SSL peer is not identified.');
  else if (subject.CN) warnings.push(`SSL peer is ${subject.CN}.`);
  else warnings.push("SSL peer's common name is absent.");
});

on.validate(KopfExample, function validate1({ spec, dryrun }) {
  if (!dryrun && spec.field === 'wrong') throw new AdmissionError("Meh! I don't like it. Change the field.");
});

on.validate(KopfExample, function validate2() {
  throw new AdmissionError("I'm too lazy anyway. Go away!", 555);
}, { field: 'spec.field', value: 'not-allowed' });

on.validate(KopfExample, function validate_subresources({ spec, subresource, status, warnings }) {
  if (subresource === 'status' && status.field !== spec.field) {
    throw new AdmissionError('status.field MUST be equal to spec.field!');
  } else if (subresource === null && status.field !== spec.field) {
    const [want, have] = [JSON.stringify(spec.field), JSON.stringify(status.field)];
    warnings.push(`Also update status.field to match spec.field: ${want} != ${have}`);
  }
}, { subresource: '*' });

on.mutate(KopfExample, function mutate1({ patch }) {
  patch.spec.injected = 123;
}, { labels: { somelabel: 'somevalue' } });
