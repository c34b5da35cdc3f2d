/**
 * Traces through OpenTelemetry's API: a span per processing cycle of an object, a child span per
 * handler call and per API request. The API is a no-op until the application registers an SDK (a
 * tracer provider, and with it a context manager that carries the active span across awaits), so
 * the runtime depends on the API only. Without an SDK a span is the API's non-recording span: no
 * attributes are built for it (`isRecording()`), and no context is entered for it.
 */
import {
  ROOT_CONTEXT, SpanKind, SpanStatusCode, context, isSpanContextValid, trace,
  type Attributes, type Span,
} from '@opentelemetry/api';
import { resourceLabel } from './resource-names.ts';

type TracedResource = Parameters<typeof resourceLabel>[0];

/** The name of the runtime's tracer, under which its spans are reported. */
const TRACER_NAME = 'kopf';

/** The spans' names; their attributes are listed in docs/observability.md. */
const SPANS = {
  cycle: 'kopf.cycle',
  handler: 'kopf.handler',
  request: 'kopf.request',
} as const;

/** The attributes' names: the object's identity, the cause, the handler, the request. */
export const ATTRIBUTES = {
  resource: 'kopf.resource',
  namespace: 'k8s.namespace.name',
  name: 'kopf.object.name',
  uid: 'kopf.object.uid',
  kind: 'kopf.object.kind',
  event: 'kopf.event.type',
  cause: 'kopf.cause',
  handler: 'kopf.handler.id',
  retry: 'kopf.retry',
  method: 'http.request.method',
  path: 'url.path',
  status: 'http.response.status_code',
} as const;

/** The object a span is about, as the runtime knows it at that point. */
export interface TracedObject {
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string | null;
  readonly uid?: string;
}

// A proxy that finds the registered provider's tracer when there is one: got once, not per span.
const tracer = trace.getTracer(TRACER_NAME);
const INTERNAL = { kind: SpanKind.INTERNAL };
const CLIENT = { kind: SpanKind.CLIENT };

/** Starts the span of one processing cycle of an object (ended by `within`, as all spans here). */
export function startCycleSpan(): Span {
  return tracer.startSpan(SPANS.cycle, INTERNAL);
}

/** Starts the span of one handler call: its id, its retry, the object, the cause it runs for. */
export function startHandlerSpan(id: string, retry: number, object?: TracedObject, cause?: string | null): Span {
  const span = tracer.startSpan(SPANS.handler, INTERNAL);
  if (span.isRecording()) {
    span.setAttribute(ATTRIBUTES.handler, id);
    span.setAttribute(ATTRIBUTES.retry, retry);
    if (cause) span.setAttribute(ATTRIBUTES.cause, cause);
    if (object) describeObject(span, object);
  }
  return span;
}

/** Starts a client span for one API request. */
export function startRequestSpan(): Span {
  return tracer.startSpan(SPANS.request, CLIENT);
}

/** Sets the object's identity on a recording span; the resource is named as the metrics name it. */
export function describeObject(span: Span, object: TracedObject, resource?: TracedResource): void {
  if (!span.isRecording()) return;
  const attributes: Attributes = {};
  if (resource) attributes[ATTRIBUTES.resource] = resourceLabel(resource);
  if (object.kind) attributes[ATTRIBUTES.kind] = object.kind;
  if (object.namespace) attributes[ATTRIBUTES.namespace] = object.namespace;
  if (object.name) attributes[ATTRIBUTES.name] = object.name;
  if (object.uid) attributes[ATTRIBUTES.uid] = object.uid;
  span.setAttributes(attributes);
}

/** Sets an API request's method and path on a recording span (the path without its query). */
export function describeRequest(span: Span, method: string, path: string): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTRIBUTES.method, method);
  span.setAttribute(ATTRIBUTES.path, path);
}

/** Sets an API request's response status; an error status marks the span failed, as HTTP clients' spans are. */
export function answered(span: Span, status: number): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTRIBUTES.status, status);
  if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
}

/**
 * Runs `fn` with the span active (its children's parent), then ends the span; an error thrown
 * by `fn` is recorded on it and thrown on. A span that does not record is not made active: its
 * children would not record either.
 */
export function within<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  // Without a tracing SDK (the usual case), every span is a no-op: no frame of our own around `fn`.
  return span.isRecording() ? recording(span, fn) : fn();
}

async function recording<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), fn);
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

function failed(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * The W3C `traceparent` of the active span, if there is one with a valid context: for records
 * made now and sent later (the Kubernetes events that handlers post).
 */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return undefined;
  const { traceId, spanId, traceFlags } = spanContext;
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * Runs `fn` outside any span: background work started from inside a span (the queue of events
 * to post) must not become a child of whatever span happened to start it.
 */
export function detached<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}

