/**
 * Nothing lost in a round trip through an older version. When the hub's object is turned into a
 * spoke's, the spoke's object is turned back at once to see what that loses: each field where
 * the two hub objects differ is kept in an annotation of the spoke's object, with the hub's value
 * and the value the round trip gives. When that object comes back up, a field still holding the
 * round trip's value gets the hub's value again; one that differs was changed through the spoke,
 * and the change wins. Only what is lost is kept: an object that converts without loss carries
 * no annotation. (Cluster API keeps the whole hub object in an annotation; this keeps less, and
 * tells a change through the spoke from the loss.)
 */
import { copyJson, diff, ensureField, isMapping, jsonEqual, removeField, resolveField } from '../structs/diffs.ts';
import type { KubeObject } from '../structs/resources.ts';

/** Where a spoke's object keeps what its version cannot hold. */
export const CONVERSION_ANNOTATION = 'kopf.dev/conversion-data';

/** One lost field: its path, the hub's value, the round trip's value (absent ones left out). */
export interface LostField {
  p: string[];
  h?: unknown;
  r?: unknown;
}

interface Kept {
  /** The hub's version the values are of: kept data of another hub is not restored. */
  hub: string;
  fields: LostField[];
}

/** The fields where the round trip differs from the hub's object (metadata aside, which converters keep). */
export function lostFields(hub: KubeObject, roundTrip: KubeObject): LostField[] {
  return diff(content(hub), content(roundTrip)).map(([, path, h, r]) => ({
    p: [...path], ...(h === undefined || h === null ? {} : { h }), ...(r === undefined || r === null ? {} : { r }),
  }));
}

/** Puts the lost fields into the spoke's object (which the caller owns), or drops a stale annotation. */
export function keepLost(spoke: KubeObject, hubVersion: string, lost: readonly LostField[]): void {
  if (!lost.length) {
    if (spoke.metadata?.annotations?.[CONVERSION_ANNOTATION] !== undefined) {
      removeField(spoke, ['metadata', 'annotations', CONVERSION_ANNOTATION]);
    }
    return;
  }
  const kept: Kept = { hub: hubVersion, fields: [...lost] };
  spoke.metadata = { ...spoke.metadata, annotations: { ...spoke.metadata?.annotations } };
  spoke.metadata.annotations![CONVERSION_ANNOTATION] = JSON.stringify(kept);
}

/** The spoke's object without the annotation (a copy if it had one), and what the annotation kept. */
export function takeKept(spoke: KubeObject, hubVersion: string): { object: KubeObject; lost: LostField[] } {
  const text = spoke.metadata?.annotations?.[CONVERSION_ANNOTATION];
  if (text === undefined) return { object: spoke, lost: [] };
  const annotations = { ...spoke.metadata!.annotations };
  delete annotations[CONVERSION_ANNOTATION];
  const metadata = { ...spoke.metadata };
  if (Object.keys(annotations).length) metadata.annotations = annotations; else delete metadata.annotations;
  return { object: { ...spoke, metadata }, lost: parseKept(text, hubVersion) };
}

/** Gives the hub's values back to the lost fields that the spoke left as the round trip had them. */
export function restoreLost(hub: KubeObject, lost: readonly LostField[]): void {
  for (const { p, h, r } of lost) {
    if (!jsonEqual(resolveField(hub, p), r)) continue; // changed through the spoke: the change wins
    if (h === undefined) removeField(hub, p); else ensureField(hub, p, copyJson(h));
  }
}

/** The kept fields, if the annotation is as written here and of this hub; anything else is nothing to restore. */
function parseKept(text: string, hubVersion: string): LostField[] {
  let kept: unknown;
  try {
    kept = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isMapping(kept) || kept.hub !== hubVersion || !Array.isArray(kept.fields)) return [];
  return kept.fields.filter(isLostField);
}

/**
 * A field of the object's content: a path of names that never reaches into the metadata or the
 * type (anyone who writes the spoke's object writes the annotation too), nor names a prototype.
 */
function isLostField(value: unknown): value is LostField {
  if (!isMapping(value) || !Array.isArray(value.p) || !value.p.length) return false;
  if (!value.p.every((key) => typeof key === 'string' && key !== '__proto__')) return false;
  return !['metadata', 'apiVersion', 'kind'].includes(value.p[0] as string);
}

function content(object: KubeObject): KubeObject {
  const { metadata: _metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest;
}
