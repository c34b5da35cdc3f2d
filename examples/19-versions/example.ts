/**
 * Typed API versions: Gadget's v1alpha1 converted to and from v1 (the hub) by the operator's
 * conversion webhook, served with a generated certificate and registered in the CRD itself
 * (`settings.admission.managed`). One handler serves the hub; another one serves v1alpha1: the
 * API server converts its watch.
 */
import { WebhookServer, on } from 'kopf';
import { Gadget } from './generated/index.ts';
import * as v1alpha1 from './generated/example.com/v1alpha1.ts';
import { gadgetV1alpha1 } from './converters.ts';

on.startup(function config({ settings }) {
  // A local endpoint with a generated certificate; the local control plane reaches it on loopback.
  settings.admission.server = new WebhookServer();
  settings.admission.managed = 'gadgets.example.com';
});

on.convert(Gadget, v1alpha1.Gadget, gadgetV1alpha1);

on.create(Gadget, function created({ spec, logger }) {
  logger.info(`A gadget of ${spec.replicas ?? 0} replicas in ${spec.color ?? 'no colour'}.`);
  return { replicas: spec.replicas ?? 0 };
});

on.event(v1alpha1.Gadget, function seen_as_v1alpha1({ body, logger }) {
  logger.info(`Seen as ${body.apiVersion}: size ${body.spec?.size ?? 'none'}.`);
});
