/**
 * What a logger produces: one record per message, handed to the configured sinks (output)
 * and to the logger's taps (e.g. the operator's event poster).
 */
import { inspected } from '../structs/errors.ts';
import type { KubeObject } from '../structs/resources.ts';

/**
 * The identity of a Kubernetes object, as Kubernetes writes it in `involvedObject`; absent or
 * empty fields are left out (cluster-scoped objects have no namespace, some kinds no apiVersion).
 */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  namespace?: string;
}

/** A copy of the body's identity, so that a queued record outlives changes to the body. */
export function buildObjectReference(body: KubeObject): ObjectReference {
  const ref: ObjectReference = {};
  const meta = body.metadata;
  if (body.apiVersion) ref.apiVersion = body.apiVersion;
  if (body.kind) ref.kind = body.kind;
  if (meta?.name) ref.name = meta.name;
  if (meta?.uid) ref.uid = meta.uid;
  if (meta?.namespace) ref.namespace = meta.namespace;
  return ref;
}

export interface LogRecord {
  /** Milliseconds since the epoch (may carry a fraction). */
  readonly time: number;
  /** On Python's scale: 10 debug, 20 info, 30 warning, 40 error, 50 critical. */
  readonly level: number;
  /** The logger's name: `kopf.objects` for per-object messages, as in Kopf. */
  readonly name: string;
  readonly message: string;
  /** The object the message is about; printed as a `[namespace/name] ` prefix or a JSON field. */
  readonly ref?: ObjectReference;
  /** An error whose stack follows the message (Python's `exc_info`). */
  readonly error?: unknown;
  /** Never posted as a Kubernetes Event, whatever the settings (Kopf's local object loggers). */
  readonly local?: boolean;
}

/** The text of an error as it follows a message: its stack when it has one. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return `${inspected(error)} was thrown: not an Error, so without a stack`;
}
