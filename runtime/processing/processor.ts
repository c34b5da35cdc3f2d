/**
 * One served resource's processing, built by the operator for each resource it serves: the
 * resource's scope (`actions/scope.ts`), its handlers, what it remembers of its objects, and the
 * other engines it offers each event to, through what it asks of them (`actions/engines.ts`).
 */
import type { ResourceDescriptor } from '../structs/resources.ts';
import type { ChangingHandler, EventHandler } from '../registry/handlers.ts';
import type { Lifecycle } from '../handling/lifecycles.ts';
import type { Indices } from '../indices/indices.ts';
import type { KeptFields } from '../actions/inconsistencies.ts';
import type { RawEvent, ResourceScope } from '../actions/scope.ts';
import type { EventIndexing, ObjectSpawning } from '../actions/engines.ts';
import type { Memories } from './memories.ts';

/** One served resource's processing: its scope, its handlers, and what it remembers of its objects. */
export interface ResourceProcessor extends ResourceScope {
  /** Served under another version or group now (the operator's relocator follows it). */
  resource: ResourceDescriptor;
  /** Forgotten when the resource is relocated: another schema keeps other fields. */
  kept: KeptFields;
  /** This resource's changing and watching handlers. */
  changing: readonly ChangingHandler[];
  watching: readonly EventHandler[];
  lifecycle: Lifecycle;
  memories: Memories;
  /** Queues an event for an object unless a newer one waits for it (events that waited for the indexes). */
  offer?(key: string, event: RawEvent): void;
  /** The operator is stopping: no new sleeps or wake-ups. */
  readonly stopping: AbortSignal;
  /** This resource's timers and daemons, if it has any. */
  spawner?: ObjectSpawning;
  /** The operator's indexing and its indexes; absent when it has no index handlers. */
  indexing?: EventIndexing;
  indices?: Indices;
}
