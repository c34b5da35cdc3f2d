/**
 * JSON values as kopf-gen reads them from CRD files. Objects have no prototype, so that keys
 * such as `__proto__` and `constructor` are plain keys (a property may be named anything).
 */
export type Json = null | boolean | number | string | Json[] | JsonMap;
export interface JsonMap {
  [key: string]: Json;
}

export function isJsonMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function newJsonMap(): JsonMap {
  return Object.create(null) as JsonMap;
}

export function hasKey(map: JsonMap, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(map, key);
}

/** JSON text with keys in a stable (sorted) order: for hashing and comparing values. */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonMap(value)) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
