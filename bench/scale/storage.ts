/**
 * Objects put straight into the control plane's etcd, for fleets too large to create through the
 * API server on a small machine (it takes a few thousand creations a minute; etcd takes thousands
 * of puts a second). The first object is created through the API and read back: every other is a
 * copy of what the API server stored for it (its managedFields entry included, so each is as large
 * as one created through the API), under its own name, uid and labels. The API server's watch cache
 * takes them from etcd's own watch, as it would take objects written by another API server.
 *
 * One object to a transaction, as an API server writes them: objects put many to a transaction
 * share one revision, and a watch open meanwhile was seen to miss whole transactions of them.
 */
import { randomUUID } from 'node:crypto';
import { createObject, keyOf, watchStream, type KubeClient } from '../../runtime/kube/index.ts';
import type { FieldMap, KubeObject, ResourceDescriptor } from '../../runtime/structs/resources.ts';
import { pool } from '../burst/objects.ts';

/** Objects put at a time, each in a transaction of its own. */
const CONCURRENCY = 64;

export interface StorageTarget {
  /** etcd's client URL. */
  etcdUrl: string;
  /** The API server's key prefix of the resource: `/registry/<group>/<plural>/`. */
  prefix: string;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/**
 * Creates `objects` (all in one namespace): the first through the API, the rest into etcd; resolves
 * when the API server has them all.
 */
export async function seedObjects<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceDescriptor<T, FieldMap>,
  target: StorageTarget,
  objects: readonly T[],
  progress: (done: number) => void = () => {},
): Promise<void> {
  const [first, ...rest] = objects;
  if (!first) return;
  const created = await createObject(client, resource, first, { namespace: first.metadata?.namespace ?? '' });
  await seedCopies(client, resource, target, created, rest, progress);
}

/**
 * Puts into etcd a copy of `stored` (an object as read from the API) for each of `objects`, under
 * its name, with an identity of its own and whatever else it sets; resolves when the API server
 * has them all beside `stored`. Copies that set nothing but their names are in `stored`'s state
 * whole: its finalizers, annotations and status, as an operator left them.
 */
export async function seedCopies<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceDescriptor<T, FieldMap>,
  target: StorageTarget,
  stored: T,
  objects: readonly T[],
  progress: (done: number) => void = () => {},
): Promise<void> {
  const namespace = stored.metadata?.namespace ?? '';
  const template = storedForm(stored);
  let done = 1;
  await pool(objects, CONCURRENCY, async (object) => {
    await put(target, copyOf(template, object));
    progress(++done);
  });
  await listed(client, resource, namespace, objects.length + 1);
}

/** What the API server keeps in etcd: the object without its resourceVersion (etcd's revision is that). */
function storedForm<T extends KubeObject>(object: T): T {
  const copy = structuredClone(object);
  delete copy.metadata?.resourceVersion;
  return copy;
}

/** The template under the object's name and what else it sets (labels, annotations, spec), with a uid of its own. */
function copyOf<T extends KubeObject>(template: T, object: T): T {
  return {
    ...template,
    ...object,
    apiVersion: template.apiVersion,
    kind: template.kind,
    metadata: {
      ...template.metadata,
      ...object.metadata,
      uid: randomUUID(),
      creationTimestamp: template.metadata?.creationTimestamp,
      managedFields: template.metadata?.managedFields,
    },
  };
}

async function put<T extends KubeObject>(target: StorageTarget, object: T): Promise<void> {
  const success = [{
    requestPut: {
      key: b64(`${target.prefix}${object.metadata?.namespace}/${object.metadata?.name}`),
      value: b64(JSON.stringify(object)),
    },
  }];
  const response = await fetch(`${target.etcdUrl}/v3/kv/txn`, { method: 'POST', body: JSON.stringify({ success }) });
  if (!response.ok) throw new Error(`etcd refused a transaction: ${response.status} ${await response.text()}`);
}

/** Waits until a watch of the namespace has seen `count` objects there (listed, or added since). */
async function listed<T extends KubeObject>(
  client: KubeClient, resource: ResourceDescriptor<T, FieldMap>, namespace: string, count: number,
): Promise<void> {
  const stop = new AbortController();
  const seen = new Set<string>();
  try {
    for await (const event of watchStream(client, resource, { namespace, metadataOnly: true, signal: stop.signal })) {
      if (!('object' in event)) continue;
      if (event.type === 'DELETED') seen.delete(keyOf(event.object));
      else seen.add(keyOf(event.object));
      if (seen.size >= count) return;
    }
  } finally {
    stop.abort();
  }
}
