/**
 * Managed webhook configurations (`settings.admission.managed = NAME`), as Kopf keeps them: one
 * ValidatingWebhookConfiguration and one MutatingWebhookConfiguration named NAME, created if absent
 * (an existing one is taken over), their `webhooks` rewritten whenever the server's client config
 * changes: one webhook per handler, its rules from the handler's resource, operations and
 * subresource. On exit, the objects stay, with the persistent handlers' webhooks only: the other
 * ones would refuse (or, ignoring failures, let through unchecked) every request while the
 * operator is away.
 */
import type { WebhookClientConfig } from '../config/admission.ts';
import { AuthorizationError, createObject, isAlreadyExists, patchObject, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { MetaFilter } from '../registry/handlers.ts';
import { ABSENT, PRESENT } from '../registry/markers.ts';
import type { WebhookKind } from '../registry/webhooks.ts';
import type { ResolvedWebhook } from '../admission/selection.ts';

export interface WebhookConfiguration extends KubeObject {
  webhooks?: Webhook[] | null;
}

/** One entry of a configuration's `webhooks`, in the fields Kopf fills. */
export interface Webhook {
  name: string;
  sideEffects: 'None' | 'NoneOnDryRun';
  failurePolicy: 'Ignore' | 'Fail';
  matchPolicy: 'Equivalent';
  rules: { apiGroups: string[]; apiVersions: string[]; resources: string[]; operations: string[]; scope: '*' }[];
  objectSelector?: { matchExpressions: MatchExpression[] };
  clientConfig: WebhookClientConfig;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
}

export interface MatchExpression {
  key: string;
  operator: 'Exists' | 'DoesNotExist' | 'In';
  values?: string[];
}

const configuration = (plural: string, kind: string): ResourceDescriptor<WebhookConfiguration> => ({
  group: 'admissionregistration.k8s.io', version: 'v1', plural, kind, scope: 'Cluster',
});

export const CONFIGURATIONS: Record<WebhookKind, ResourceDescriptor<WebhookConfiguration>> = {
  validating: configuration('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'),
  mutating: configuration('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'),
};

/** Creates the configuration if it is absent; without the permission to, the operator cannot serve. */
export async function ensureConfiguration(
  client: KubeClient, kind: WebhookKind, name: string, logger: Logger, signal?: AbortSignal,
): Promise<void> {
  try {
    await createObject(client, CONFIGURATIONS[kind], { metadata: { name } }, { signal });
  } catch (error) {
    if (isAlreadyExists(error)) return;
    const { kind: what } = CONFIGURATIONS[kind];
    if (error instanceof AuthorizationError) logger.error(`Not enough RBAC permissions to create the ${what} ${name}.`);
    throw error;
  }
}

/** Writes the configuration's webhooks: all handlers', or the persistent ones' only. */
export async function writeConfiguration(
  client: KubeClient, kind: WebhookKind, name: string, webhooks: Webhook[],
): Promise<void> {
  await patchObject(client, CONFIGURATIONS[kind], { name }, { webhooks });
}

/** The webhooks of one kind of handlers, as Kopf builds them. */
export function buildWebhooks(
  resolved: readonly ResolvedWebhook[], kind: WebhookKind, suffix: string, clientConfig: WebhookClientConfig,
  persistentOnly = false,
): Webhook[] {
  return resolved
    .filter(({ handler }) => handler.webhook === kind && (!persistentOnly || handler.persistent))
    .map(({ handler, resource }) => {
      const selector = labelSelector(handler.filters.labels);
      return {
        name: webhookName(handler.id, suffix),
        sideEffects: handler.sideEffects ? 'NoneOnDryRun' : 'None',
        failurePolicy: handler.ignoreFailures ? 'Ignore' : 'Fail',
        matchPolicy: 'Equivalent',
        rules: [{
          apiGroups: [resource.group], apiVersions: [resource.version],
          resources: [handler.subresource === null ? resource.plural : `${resource.plural}/${handler.subresource}`],
          operations: [...(handler.operations ?? ['*'])], scope: '*',
        }],
        ...(selector ? { objectSelector: selector } : {}),
        clientConfig: withWebhookPath(clientConfig, handler.id),
        timeoutSeconds: handler.timeout,
        admissionReviewVersions: ['v1', 'v1beta1'],
      };
    });
}

/**
 * A webhook's name: the handler id made a DNS subdomain as Kopf makes it (`/` → `.`, `_` → `-`,
 * any other character outside letters, digits, dots and dashes as the hex of its UTF-8 bytes), then
 * the configuration's name. Kubernetes wants lowercase: upper-case letters are lowered.
 */
export function webhookName(id: string, suffix: string): string {
  const name = id.replaceAll('/', '.').replaceAll('_', '-')
    .replace(/[^\w.-]/gu, (c) => Buffer.from(c).toString('hex')).toLowerCase();
  return suffix ? `${name}.${suffix}` : name;
}

/** Label filters that are not callbacks, as an object selector: the API server filters before calling. */
function labelSelector(labels: Record<string, MetaFilter<KubeObject>> | undefined): Webhook['objectSelector'] {
  const expressions = Object.entries(labels ?? {}).flatMap(([key, value]): MatchExpression[] => {
    if (value === PRESENT) return [{ key, operator: 'Exists' }];
    if (value === ABSENT) return [{ key, operator: 'DoesNotExist' }];
    if (typeof value === 'string') return [{ key, operator: 'In', values: [value] }];
    return [];
  });
  return expressions.length ? { matchExpressions: expressions } : undefined;
}

/**
 * The client config with the handler's id (or a converted CRD's name) at the end of the path (its
 * slashes kept): the server knows which handler is asked.
 */
export function withWebhookPath(config: WebhookClientConfig, id: string): WebhookClientConfig {
  const segment = id.split('/').map(encodeURIComponent).join('/');
  const { service } = config;
  return {
    ...config,
    ...(config.url !== undefined ? { url: `${trimmed(config.url)}/${segment}` } : {}),
    ...(service ? { service: { ...service, path: `${trimmed(service.path ?? '')}/${segment}` } } : {}),
  };
}

function trimmed(path: string): string {
  return path.replace(/\/+$/, '');
}
