/**
 * The parts of an object that its timers and daemons see — `body`, `spec`, `status`, `meta`,
 * `labels`, `annotations` — as live views, as in Kopf: one object per part, refilled in place with
 * every body the operator sees, so that a part taken out of the context once (`({ spec }) => …`)
 * still shows the object as it is now, in a daemon's loop or a long timer call.
 *
 * They are plain objects, not proxies: printing them, spreading them, `JSON.stringify`,
 * `structuredClone` and `Object.keys` see the current fields as they would of any object, and
 * reading a field costs what it costs elsewhere; the refill costs one shallow copy per part and event.
 * Their fields are read-only (an assignment throws): the object is changed through `patch`. The
 * values inside (`spec.items`, `meta.ownerReferences`) are those of the body seen last, taken as
 * they are when read.
 */
import { isMapping } from '../structs/diffs.ts';
import type { JsonObject, KubeObject, ObjectMeta } from '../structs/resources.ts';

export class LiveViews {
  readonly body: KubeObject = {};
  readonly spec: JsonObject = {};
  readonly status: JsonObject = {};
  readonly meta: ObjectMeta = {};
  readonly labels: Record<string, string> = {};
  readonly annotations: Record<string, string> = {};

  constructor(body: KubeObject) {
    this.refresh(body);
  }

  /** Shows `body` from now on, in every view handed out already. */
  refresh(body: KubeObject): void {
    const meta = body.metadata;
    refill(this.body, body);
    refill(this.spec, body.spec);
    refill(this.status, body.status);
    refill(this.meta, meta);
    refill(this.labels, meta?.labels);
    refill(this.annotations, meta?.annotations);
  }
}

/**
 * Replaces the view's fields with the source's, in the source's order; a source that is not a
 * mapping leaves it empty.
 */
function refill(view: object, source: unknown): void {
  for (const key of Object.keys(view)) delete (view as Record<string, unknown>)[key];
  if (!isMapping(source)) return;
  // Defined, not assigned: a key such as `__proto__` from the cluster becomes a field like any other.
  for (const [key, value] of Object.entries(source)) {
    Object.defineProperty(view, key, { value, enumerable: true, writable: false, configurable: true });
  }
}
