/**
 * The Kubernetes Event an operator posts, built exactly as Kopf builds it, so that tools reading
 * Kopf's events (`kubectl describe`, dashboards, e2e tests) read ours the same way.
 */
import type { PostingSettings } from '../config/settings.ts';
import type { ObjectReference } from '../logging/log-records.ts';
import { isoUtcMicro } from '../logging/time-layouts.ts';

/** Kopf's types: `Normal`, `Warning`, `Error`; logged records also give `Debug` and `Fatal`. */
export type EventType = 'Normal' | 'Warning' | 'Error' | 'Debug' | 'Fatal' | (string & {});

/** An event waiting in the queue: the object's identity is copied, so the body may change or go. */
export interface QueuedEvent {
  readonly ref: ObjectReference;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  /** When it happened (milliseconds since the epoch), which becomes its timestamps. */
  readonly time: number;
  /** The W3C trace context of the span it was posted from (a handler's call), if traces are on. */
  readonly traceparent?: string;
}

/** The annotation of a posted Event that holds the trace context it was posted from. */
export const TRACEPARENT_ANNOTATION = 'kopf.dev/traceparent';

export interface EventBody {
  metadata: { namespace: string; generateName: string; annotations?: Record<string, string> };
  action: string;
  type: string;
  reason: string;
  message: string;
  reportingComponent: string;
  reportingInstance: string;
  source: { component: string };
  involvedObject: ObjectReference & { namespace: string };
  firstTimestamp: string;
  lastTimestamp: string;
  eventTime: string;
}

export const MAX_MESSAGE_LENGTH = 1024;
const CUT_INFIX = '...';

/**
 * Kubernetes rejects long messages; Kopf keeps the start and the end (511 + `...` + 510
 * characters). Lengths count code points, as Python does.
 */
export function cutMessage(message: string): string {
  const chars = Array.from(message);
  if (chars.length <= MAX_MESSAGE_LENGTH) return message;
  const head = MAX_MESSAGE_LENGTH / 2 - Math.floor(CUT_INFIX.length / 2);
  const tail = MAX_MESSAGE_LENGTH / 2 - (CUT_INFIX.length - Math.floor(CUT_INFIX.length / 2));
  return chars.slice(0, head).join('') + CUT_INFIX + chars.slice(chars.length - tail).join('');
}

/** Events about Events would breed more Events (e.g. an operator serving everything). */
export function isAboutEvent(ref: ObjectReference): boolean {
  return ref.apiVersion === 'v1' && ref.kind === 'Event';
}

/**
 * The body to POST to core v1 `events` in `metadata.namespace`: the object's namespace, or for
 * cluster-scoped objects the given default (the credentials' namespace, else `default`).
 */
export function buildEventBody(event: QueuedEvent, posting: PostingSettings, defaultNamespace: string): EventBody {
  const namespace = event.ref.namespace || defaultNamespace;
  const now = isoUtcMicro(event.time);
  const metadata: EventBody['metadata'] = { namespace, generateName: posting.eventNamePrefix };
  if (event.traceparent) metadata.annotations = { [TRACEPARENT_ANNOTATION]: event.traceparent };
  return {
    metadata,
    action: 'Action?',
    type: event.type,
    reason: event.reason,
    message: cutMessage(event.message),
    reportingComponent: posting.reportingComponent,
    reportingInstance: posting.reportingInstance,
    source: { component: posting.reportingComponent },
    involvedObject: { ...event.ref, namespace },
    firstTimestamp: now,
    lastTimestamp: now,
    eventTime: now,
  };
}
