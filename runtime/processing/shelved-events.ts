/**
 * Watch events shelved while they wait far back in the queue (`queueing/workers.ts`): what is kept
 * is the object's name and the version seen, and the object is read again when a worker takes it,
 * at that version or newer (the API server answers from its watch cache). At the cold start of a
 * large fleet nearly every object waits, so the backlog holds names rather than bodies; the read
 * that makes each whole again gives a state at least as new as the one that waited.
 */
import { getObject, isNotFound } from '../kube/index.ts';
import type { RawEvent } from '../actions/scope.ts';
import type { Shelf } from '../queueing/workers.ts';
import { sleep } from '../queueing/sleeping.ts';
import { ErrorDelays } from '../queueing/error-delays.ts';
import type { ResourceProcessor } from './processor.ts';

export interface ShelvedEvent {
  readonly kind: 'event';
  readonly type: RawEvent['type'];
  readonly namespace: string | undefined;
  readonly name: string;
  /** The object's uid: one of the same name read again is another object if its uid differs. */
  readonly uid: string | undefined;
  /** The version the watch had when the event was shelved: the read returns it or a newer one. */
  readonly version: string | undefined;
}

/**
 * The shelf of a resource's events; `current` is the processor of where the resource is served now.
 * Only states of an object are shelved: a deletion, or a request of this runtime's own, is kept whole.
 */
export function eventShelf(current: () => ResourceProcessor): Shelf<RawEvent, ShelvedEvent> {
  return {
    shelve(event) {
      const { metadata } = event.object;
      if (event.kind !== 'event' || event.type === 'DELETED' || !metadata?.name) return undefined;
      return { kind: 'event', type: event.type, namespace: metadata.namespace, name: metadata.name,
        uid: metadata.uid, version: metadata.resourceVersion };
    },
    unshelve: (shelved, signal) => readAgain(current, shelved, signal),
  };
}

/**
 * The shelved event with the object read again; `undefined` if it is gone (its deletion comes
 * through the watch, and a new object of its name as an event of its own) or the signal ended the
 * wait. A failed read is tried again after the resource's error delays (the last one repeating, a
 * second if there are none), as long as the object waits for it.
 */
async function readAgain(
  current: () => ResourceProcessor, shelved: ShelvedEvent, signal: AbortSignal,
): Promise<RawEvent | undefined> {
  const { namespace, name, uid, version, type } = shelved;
  let delays: ErrorDelays | undefined;
  for (;;) {
    const proc = current();
    try {
      const ref = { namespace, name };
      const object = await getObject(proc.client, proc.resource, ref, { notOlderThan: version, signal });
      return object.metadata?.uid === uid ? { kind: 'event', type, object } : undefined;
    } catch (error) {
      if (signal.aborted || isNotFound(error)) return undefined;
      delays ??= new ErrorDelays(proc.settings.queueing.errorDelays);
      const delay = delays.next() ?? 1;
      const where = namespace ? `${namespace}/${name}` : name;
      proc.logger.warning(`Reading ${where} for its turn in the queue failed; trying again in ${delay} s.`, error);
      if (!(await sleep(delay, signal, proc.stopping))) return undefined;
    }
  }
}
