/**
 * The served resource as the actions and the engines see it: read-only, and the same for all of
 * them (as Kopf's engines get their resource, settings and loggers, never each other). What only
 * the processing of events needs (its handlers, lifecycle, memories, the other engines it calls)
 * is the processing's own (`processing/processing.ts`).
 */
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import type { KubeClient } from '../kube/index.ts';
import type { OperatorSettings } from '../config/settings.ts';
import type { Logger } from '../logging/index.ts';
import type { EventPoster } from '../posting/index.ts';
import type { Indices } from '../indices/indices.ts';
import type { KeptFields } from './inconsistencies.ts';
import type { OperatorMetrics, ReconcileTrigger } from '../observation/metrics.ts';
import type { RequestKind } from '../queueing/requests.ts';

/**
 * A request for one object in its queue: a watch event, or one that this runtime makes itself
 * (`queueing/requests.ts` says what each kind is and how it meets the others in the queue).
 */
export interface RawEvent {
  readonly kind: RequestKind;
  /** `null` for objects from a listing, as in Kopf; `MODIFIED` for the requests of this runtime. */
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | null;
  object: KubeObject;
  /** What queued a reconcile request; absent for an event of the object itself (`change`). */
  trigger?: ReconcileTrigger;
}

/** Where a write goes: the resource and the client, and what its merge-patches were seen to keep. */
export interface WriteScope {
  readonly resource: ResourceDescriptor;
  readonly client: KubeClient;
  /** The fields that this resource's merge-patches were seen to keep (`inconsistencies.ts`). */
  readonly kept: KeptFields;
}

/** What a handler is invoked with, besides its object: the operator's settings, events and loggers. */
export interface InvocationScope {
  readonly settings: OperatorSettings;
  readonly poster: EventPoster;
}

/** The served resource, for every engine that handles its objects. */
export interface ResourceScope extends WriteScope, InvocationScope {
  /** The operator's logger; object loggers derive from it. */
  readonly logger: Logger;
  /** The operator has waited for the running cycles long enough: their handlers are cancelled. */
  readonly cancelled: AbortSignal;
  /** The operator's indexes, as handlers read them; absent when it has no index handlers. */
  readonly indices?: Indices;
  /** Puts a request for an object into its queue: the one way in (`queueing/requests.ts`). */
  enqueue(key: string, request: RawEvent): void;
  /** The operator's metrics, if kept: the handlers' runs are reported there. */
  readonly metrics?: OperatorMetrics;
}
