/**
 * The resource of the conversion tests: Widget in three versions — v1 (stored, the hub), v1beta1
 * and v1alpha1 — with converters that fail on request (a colour that says how), and the etcd
 * reads that show in which version an object is stored.
 */
import assert from 'node:assert/strict';
import type { KubeObject, ResourceDescriptor } from '../../../runtime/structs/resources.ts';
import type { Converters } from '../../../runtime/registry/conversions.ts';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';

export const GROUP = 'e2e.kopf.dev';
export const CRD_NAME = `widgets.${GROUP}`;

export interface WidgetV1 extends KubeObject {
  spec?: { replicas?: number; color?: string; paused?: boolean };
}
export interface WidgetV1beta1 extends KubeObject {
  spec?: { count?: number; color?: string };
}
export interface WidgetV1alpha1 extends KubeObject {
  spec?: { size?: 'small' | 'large'; colour?: string };
}

const widget = <T extends KubeObject>(version: string): ResourceDescriptor<T> => ({
  group: GROUP, version, plural: 'widgets', singular: 'widget', kind: 'Widget', scope: 'Namespaced',
});
export const V1 = widget<WidgetV1>('v1');
export const V1beta1 = widget<WidgetV1beta1>('v1beta1');
export const V1alpha1 = widget<WidgetV1alpha1>('v1alpha1');

const preserved = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
type Properties = Record<string, { type: string; enum?: string[] }>;
const version = (name: string, storage: boolean, spec: Properties) => ({
  name, served: true, storage, subresources: { status: {} },
  schema: {
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec }, status: preserved } },
  },
});

export function widgetVersions(storage: string) {
  return [
    version('v1', storage === 'v1', {
      replicas: { type: 'integer' }, color: { type: 'string' }, paused: { type: 'boolean' },
    }),
    version('v1beta1', storage === 'v1beta1', { count: { type: 'integer' }, color: { type: 'string' } }),
    version('v1alpha1', storage === 'v1alpha1', {
      size: { type: 'string', enum: ['small', 'large'] }, colour: { type: 'string' },
    }),
  ];
}

export const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: CRD_NAME },
  spec: {
    group: GROUP, scope: 'Namespaced', versions: widgetVersions('v1'),
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
  },
};

/** v1alpha1 ⇄ v1; a colour asks a converter to fail: by throwing, or with a wrong apiVersion or name. */
export const alphaConverters: Converters<WidgetV1, WidgetV1alpha1> = {
  up: ({ spec, ...old }) => {
    if (spec?.colour === 'explode-up') throw new Error('v1alpha1 exploded on its way up');
    return {
      ...old, apiVersion: `${GROUP}/v1`,
      spec: {
        ...(spec?.size ? { replicas: spec.size === 'large' ? 3 : 1 } : {}),
        ...(spec?.colour === undefined ? {} : { color: spec.colour }),
      },
    };
  },
  down: ({ spec, ...hub }) => {
    if (spec?.color === 'explode') throw new Error('v1 exploded on its way down');
    const renamed = spec?.color === 'rename' ? { metadata: { ...hub.metadata, name: 'other' } } : {};
    const apiVersion = spec?.color === 'wrong-version' ? `${GROUP}/v1beta1` : `${GROUP}/v1alpha1`;
    return {
      ...hub, apiVersion, ...renamed,
      spec: {
        ...(spec?.replicas === undefined ? {} : { size: spec.replicas >= 3 ? 'large' : 'small' }),
        ...(spec?.color === undefined ? {} : { colour: spec.color }),
      },
    };
  },
};

export const betaConverters: Converters<WidgetV1, WidgetV1beta1> = {
  up: ({ spec, ...old }) => ({
    ...old, apiVersion: `${GROUP}/v1`,
    spec: {
      ...(spec?.count === undefined ? {} : { replicas: spec.count }), ...(spec?.color ? { color: spec.color } : {}),
    },
  }),
  down: ({ spec, ...hub }) => ({
    ...hub, apiVersion: `${GROUP}/v1beta1`,
    spec: {
      ...(spec?.replicas === undefined ? {} : { count: spec.replicas }), ...(spec?.color ? { color: spec.color } : {}),
    },
  }),
};

export function widgetRegistry(): OperatorRegistry {
  const registry = new OperatorRegistry();
  registry.on.convert(V1, V1alpha1, alphaConverters);
  registry.on.convert(V1, V1beta1, betaConverters);
  return registry;
}

/** The apiVersion of each widget as etcd holds it, by `namespace/name`: read with etcd's own API. */
export async function storedVersions(etcdUrl: string): Promise<Map<string, string>> {
  const prefix = `/registry/${GROUP}/widgets/`;
  const end = `${prefix.slice(0, -1)}0`; // the key after every key with the prefix
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const response = await fetch(`${etcdUrl}/v3/kv/range`, {
    method: 'POST', body: JSON.stringify({ key: b64(prefix), range_end: b64(end) }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  const { kvs = [] } = await response.json() as { kvs?: { key: string; value: string }[] };
  const versions = new Map<string, string>();
  for (const { key, value } of kvs) {
    const stored = JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as KubeObject;
    versions.set(Buffer.from(key, 'base64').toString('utf8').slice(prefix.length), String(stored.apiVersion));
  }
  return versions;
}
