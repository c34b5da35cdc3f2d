/**
 * Gadget's converters between v1alpha1 and v1 (the hub, the storage version): `size` (small or
 * large) becomes `replicas` (1 or 3) and back, `colour` is `color`. v1's `paused` has no place
 * in v1alpha1, and the replicas other than 1 and 3 do not either: the runtime keeps them on the
 * v1alpha1 object and restores them, with no code here.
 */
import type { Converters } from 'kopf';
import type { Gadget } from './generated/example.com/v1.ts';
import type * as v1alpha1 from './generated/example.com/v1alpha1.ts';

export const gadgetV1alpha1: Converters<Gadget, v1alpha1.Gadget> = {
  up: ({ spec, ...old }) => ({
    ...old,
    apiVersion: 'example.com/v1',
    spec: {
      ...(spec?.size === undefined ? {} : { replicas: spec.size === 'large' ? 3 : 1 }),
      ...(spec?.colour === undefined ? {} : { color: spec.colour }),
    },
  }),
  down: ({ spec, ...hub }) => ({
    ...hub,
    apiVersion: 'example.com/v1alpha1',
    spec: {
      ...(spec?.replicas === undefined ? {} : { size: spec.replicas >= 3 ? 'large' : 'small' }),
      ...(spec?.color === undefined ? {} : { colour: spec.color }),
    },
  }),
};
