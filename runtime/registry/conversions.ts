/**
 * Converters between the versions of a custom resource (`on.convert`): hub and spoke, as
 * controller-runtime has them. One version of a kind is the hub (usually the storage version);
 * every other version (a spoke) has an `up` to the hub and a `down` from it, and a spoke is turned
 * into another spoke through the hub. Typed by the descriptors: `up` takes the spoke's object
 * type and returns the hub's, `down` the reverse. Here are their registration (`on.convert`, its
 * part of the registry's `On`), their checks and their records in the registry.
 */
import type { FieldMap, KubeObject, ObjectOf, ResourceDescriptor } from '../structs/resources.ts';
import { RegistrationError } from './ids.ts';

/** What the user writes: the two directions between a spoke and its hub. */
export interface Converters<H extends KubeObject, S extends KubeObject> {
  /** The spoke's object as the hub's; `apiVersion` the hub's, metadata the spoke's (labels and annotations aside). */
  up: (spoke: S) => H;
  /** The hub's object as the spoke's; `apiVersion` the spoke's, metadata the hub's (labels and annotations aside). */
  down: (hub: H) => S;
}

export type ConvertFn = (object: KubeObject) => KubeObject;

/** The registry's `on.convert`. */
export interface OnConvert {
  /**
   * Converters between two versions of a resource, for the API server's conversion webhook:
   * `up` from the spoke's version to the hub's, `down` back. Spoke to spoke goes through the hub.
   * What the hub has and a spoke lacks is kept on the spoke's objects and restored, so that a round
   * trip through an older version loses nothing. See docs/versions.md.
   */
  convert<H extends ResourceDescriptor<KubeObject, FieldMap>, S extends ResourceDescriptor<KubeObject, FieldMap>>(
    hub: H, spoke: S, converters: NoInfer<Converters<ObjectOf<H>, ObjectOf<S>>>,
  ): void;
}

/** One spoke's converters as the registry keeps them. */
export interface ConversionHandler {
  kind: 'conversion';
  /** Named in messages: `gadgets.example.com v1alpha1 ⇄ v1`. */
  id: string;
  hub: ResourceDescriptor;
  spoke: ResourceDescriptor;
  up: ConvertFn;
  down: ConvertFn;
}

/** The CRD's name of a descriptor's resource: `<plural>.<group>`. */
export function crdName(resource: Pick<ResourceDescriptor, 'plural' | 'group'>): string {
  return `${resource.plural}.${resource.group}`;
}

const WHAT = 'on.convert';

/** A spoke's converters, checked against the ones registered before (one hub per kind, a spoke once). */
export function conversionOf(
  hub: ResourceDescriptor<KubeObject, FieldMap>, spoke: ResourceDescriptor<KubeObject, FieldMap>,
  converters: Converters<KubeObject, KubeObject>, registered: readonly ConversionHandler[],
): ConversionHandler {
  for (const [name, descriptor] of [['hub', hub], ['spoke', spoke]] as const) {
    if (typeof descriptor !== 'object' || descriptor === null || typeof descriptor.version !== 'string') {
      throw new RegistrationError(`${WHAT}: the ${name} must be a resource descriptor (a generated module's).`);
    }
  }
  const id = `${crdName(hub)} ${spoke.version} ⇄ ${hub.version}`;
  if (hub.group !== spoke.group || hub.plural !== spoke.plural || hub.kind !== spoke.kind) {
    throw new RegistrationError(`${WHAT}: ${hub.kind}.${hub.group} and ${spoke.kind}.${spoke.group} are ` +
      'different resources; converters join versions of one resource.');
  }
  if (hub.version === spoke.version) {
    throw new RegistrationError(`${WHAT} ${id}: the hub and the spoke are one version.`);
  }
  for (const name of ['up', 'down'] as const) {
    if (typeof converters?.[name] !== 'function') {
      throw new RegistrationError(`${WHAT} ${id}: \`${name}\` must be a function.`);
    }
  }
  for (const other of registered.filter((h) => crdName(h.hub) === crdName(hub))) {
    if (other.hub.version !== hub.version) {
      throw new RegistrationError(`${WHAT} ${id}: the hub of ${crdName(hub)} is ${other.hub.version} ` +
        `already (${other.id}); a resource has one hub.`);
    }
    if (other.spoke.version === spoke.version) {
      throw new RegistrationError(`${WHAT} ${id}: the converters of ${spoke.version} are registered already.`);
    }
  }
  return { kind: 'conversion', id, hub, spoke, up: converters.up as ConvertFn, down: converters.down as ConvertFn };
}

/** `on.convert` of a registry that keeps its converters in `registered`: each spoke's checked, then kept. */
export function onConvert(registered: ConversionHandler[]): OnConvert['convert'] {
  // The typing is the signature's; what arrives is checked as plain JavaScript would send it.
  const convert = (hub: Descriptor, spoke: Descriptor, converters: Converters<KubeObject, KubeObject>) => {
    registered.push(conversionOf(hub, spoke, converters, registered));
  };
  return convert as OnConvert['convert'];
}

type Descriptor = ResourceDescriptor<KubeObject, FieldMap>;
