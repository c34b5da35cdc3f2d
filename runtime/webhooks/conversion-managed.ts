/**
 * The conversion webhook in the CRDs themselves (`settings.admission.managed`): each converted
 * resource's CRD gets `spec.conversion` — strategy Webhook, the server's client config with the
 * CRD's name at the end of its path, the CA bundle, the review versions — whenever the server's
 * client config changes. Unlike the admission webhooks, it stays when the operator exits: the API
 * server cannot serve objects of other versions without it, and it fails only the requests that
 * need a conversion while the operator is away.
 */
import type { WebhookClientConfig } from '../config/admission.ts';
import { AuthorizationError, patchObject, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import { CustomResourceDefinitions } from '../structs/builtins.ts';
import { CONVERSION_REVIEW_VERSION } from '../conversion/reviews.ts';
import { crdName, type ConversionHandler } from '../registry/conversions.ts';
import { withWebhookPath } from './managed.ts';

/** The CRDs of the converted resources, each once. */
export function convertedCrds(handlers: readonly ConversionHandler[]): string[] {
  return [...new Set(handlers.map((h) => crdName(h.hub)))];
}

/** `spec.conversion` of a CRD whose conversions this server answers. */
export function conversionOf(name: string, config: WebhookClientConfig) {
  const { url, service, caBundle } = withWebhookPath(config, name);
  // A merge patch: the way not taken is removed, so that a CRD moved from a URL to a Service has one.
  const clientConfig = { url: url ?? null, service: service ?? null, caBundle: caBundle ?? null };
  const version = CONVERSION_REVIEW_VERSION.split('/')[1]!;
  return { strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions: [version] } };
}

/** Points the CRDs' conversion to the server. */
export async function configureConversions(
  client: KubeClient, crds: readonly string[], config: WebhookClientConfig, logger: Logger,
): Promise<void> {
  for (const name of crds) {
    logger.info(`Reconfiguring the conversion webhook of the CRD ${name}.`);
    try {
      const patch = { spec: { conversion: conversionOf(name, config) } };
      await patchObject(client, CustomResourceDefinitions, { name }, patch);
    } catch (error) {
      if (error instanceof AuthorizationError) logger.error(`Not enough RBAC permissions to patch the CRD ${name}.`);
      throw error;
    }
  }
}
