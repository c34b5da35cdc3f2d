/**
 * One served resource's processing, built complete for each resource the operator serves
 * (`pipeline/pipeline.ts`): the resource's scope (`actions/scope.ts`), its handlers, what it
 * remembers of its objects, and the other engines it offers each event to, through what it asks of
 * them (`actions/engines.ts`). Nothing of it changes; a resource served elsewhere gets a new one.
 */
import type { ChangingHandler, EventHandler } from '../registry/handlers.ts';
import type { Lifecycle } from '../handling/lifecycles.ts';
import type { Indices } from '../indices/indices.ts';
import type { ResourceScope } from '../actions/scope.ts';
import type { EventIndexing, ObjectReconciling, ObjectSpawning } from '../actions/engines.ts';
import type { Memories } from './memories.ts';

/** One served resource's processing: its scope, its handlers, and what it remembers of its objects. */
export interface ResourceProcessor extends ResourceScope {
  /** This resource's changing and watching handlers. */
  readonly changing: readonly ChangingHandler[];
  readonly watching: readonly EventHandler[];
  readonly lifecycle: Lifecycle;
  readonly memories: Memories;
  /** The operator is stopping: no new sleeps or wake-ups. */
  readonly stopping: AbortSignal;
  /** This resource's timers and daemons, if it has any. */
  readonly spawner?: ObjectSpawning;
  /** This resource's reconciler, if it has one. */
  readonly reconciling?: ObjectReconciling;
  /** The operator's indexing and its indexes; absent when it has no index handlers. */
  readonly indexing?: EventIndexing;
  readonly indices?: Indices;
}
