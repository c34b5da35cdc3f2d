/**
 * Annotation keys as Kopf forms them for progress records, the diff-base and the touch key.
 *
 * Kubernetes allows 63 characters in an annotation's name (the part after `prefix/`). Longer
 * keys are cut and end in a hash of the whole key, so they stay unique: BLAKE2b with a 4-byte
 * digest (a BLAKE2 parameter, not a truncated BLAKE2b-512), base64 with `-` and `.` for `+` and
 * `/`, trailing `=`/`-`/`.` stripped, after a `-`. Lengths count code points, as Python does.
 *
 * V1 keys (older Kopf) counted the prefix in the 63 characters and hashed the safe key; V2 keys
 * count only the name and hash the original key. Kopf writes both (V2 first), reads the first
 * found, so that operators of either age can take an object over.
 *
 * Kopf replaces only `/`, `<` and `>`: an id with other characters an annotation's name cannot have
 * (a sub-handler's id made of an object's content: `é`, a space, a newline; or one that starts or
 * ends with `_` or `.`) makes a key the API server refuses, and every write of the object with it.
 * Such an id, which no Kopf can store, is stored under one key of its own (`validKey`), made as
 * Kopf makes a key too long: what can be kept of the name, then the hash of the whole key.
 */
import { createRequire } from 'node:module';
import type { KubeObject } from '../structs/resources.ts';

type Blake2b = typeof import('@noble/hashes/blake2.js').blake2b;

/**
 * The hash's code is loaded the first time a key is too long, which most operators' keys never
 * are: its tables would stay in every operator's memory for nothing.
 */
let blake2b: Blake2b | undefined;
const require = createRequire(import.meta.url);

const MAX_NAME_LENGTH = 63;

/** `/` → `.`, `<` and `>` → `_`: characters annotation names cannot have. */
export function safeKey(key: string): string {
  return key.replaceAll('/', '.').replaceAll('<', '_').replaceAll('>', '_');
}

/** The hash suffix of a key: `-SItAqA` for 64 × `x`. */
export function hashSuffix(key: string): string {
  blake2b ??= (require('@noble/hashes/blake2.js') as { blake2b: Blake2b }).blake2b;
  const digest = blake2b(new TextEncoder().encode(key), { dkLen: 4 });
  const alnums = Buffer.from(digest).toString('base64').replaceAll('+', '-').replaceAll('/', '.');
  return `-${alnums}`.replace(/[=.-]+$/, '');
}

/**
 * Keys of ReplicaSets owned by Deployments get `-ofDRS`: Kubernetes copies a Deployment's
 * annotations to its ReplicaSets, which would otherwise overwrite the ReplicaSet's own state.
 */
export function markKey(key: string, body: KubeObject | null | undefined): string {
  if (!body || body.kind !== 'ReplicaSet') return key;
  const owners = body.metadata?.ownerReferences ?? [];
  return owners.some((owner) => owner.kind === 'Deployment') ? `${key}-ofDRS` : key;
}

/** Kopf's V1 key: the 63-character limit applies to `prefix/name` as a whole. */
export function v1Key(prefix: string, key: string, maxLength = MAX_NAME_LENGTH): string {
  const safe = safeKey(key);
  const head = prefix ? `${prefix}/` : '';
  const room = maxLength - length(head);
  const suffix = length(safe) <= room ? '' : hashSuffix(safe);
  return `${head}${slice(safe, room - length(suffix))}${suffix}`;
}

/** Kopf's V2 key: the 63-character limit applies to the name only. */
export function v2Key(prefix: string, key: string, maxLength = MAX_NAME_LENGTH): string {
  const head = prefix ? `${prefix}/` : '';
  const suffix = length(key) > maxLength ? hashSuffix(key) : '';
  return `${head}${slice(safeKey(key), Math.max(0, maxLength - length(suffix)))}${suffix}`;
}

/** An annotation's name as the API server accepts it (after `prefix/`): alphanumerics at both ends. */
const ANNOTATION_NAME = /^(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Whether the API server accepts this key's name (the part after `prefix/`). */
export function isValidKey(prefix: string, full: string): boolean {
  const name = prefix ? full.slice(prefix.length + 1) : full;
  return name.length <= MAX_NAME_LENGTH && ANNOTATION_NAME.test(name);
}

/**
 * The key of an id whose Kopf keys the API server refuses: the characters a name cannot have
 * become `_`, those it cannot start with are dropped, and the hash of the whole key always ends
 * it, so that ids that differ only in what was replaced still get keys of their own.
 */
export function validKey(prefix: string, key: string, maxLength = MAX_NAME_LENGTH): string {
  const head = prefix ? `${prefix}/` : '';
  const suffix = hashSuffix(key);
  const kept = safeKey(key).replace(/[^-A-Za-z0-9_.]/gu, '_').replace(/^[^A-Za-z0-9]+/, '');
  // With nothing kept, a word of its own: the hash may start with `-` or `.`.
  const name = `${(kept || 'id').slice(0, maxLength - suffix.length)}${suffix}`;
  return `${head}${name}`;
}

// The same few handler ids get their keys on every cycle of every object, and hashing them is
// tens of microseconds. Looked up by prefix, then by key (no joined string per call); bounded,
// so that ever-new ids cannot grow it without limit.
const cachedKeys = [
  new Map<string, Map<string, readonly string[]>>(),
  new Map<string, Map<string, readonly string[]>>(),
];
const MAX_CACHED_KEYS = 4096;

/** All keys a record is written under, V2 first, without duplicates (shared: not to be changed). */
export function storageKeys(
  prefix: string,
  key: string,
  options: { v1?: boolean; body?: KubeObject | null } = {},
): readonly string[] {
  const marked = markKey(key, options.body);
  const withV1 = options.v1 ?? true;
  const byPrefix = cachedKeys[withV1 ? 1 : 0]!;
  let byKey = byPrefix.get(prefix);
  if (!byKey) byPrefix.set(prefix, (byKey = new Map()));
  let keys = byKey.get(marked);
  if (keys === undefined) {
    keys = Object.freeze(keysOf(prefix, marked, withV1));
    if (byKey.size >= MAX_CACHED_KEYS) byKey.clear();
    byKey.set(marked, keys);
  }
  return keys;
}

/** Kopf's keys (V2 first) where the API server accepts them, else the one key `validKey` makes. */
function keysOf(prefix: string, key: string, withV1: boolean): string[] {
  const v2 = v2Key(prefix, key);
  if (!isValidKey(prefix, v2)) return [validKey(prefix, key)];
  const v1 = withV1 ? v1Key(prefix, key) : v2;
  return v1 === v2 ? [v2] : [v2, v1];
}

function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Python's `text[:end]` over code points, negative ends counting from the end. */
function slice(text: string, end: number): string {
  const points = [...text];
  return points.slice(0, end < 0 ? Math.max(0, points.length + end) : end).join('');
}
