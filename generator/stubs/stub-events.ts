/**
 * The handler stubs every handler file gets, in the order they appear in a new file.
 * The function name of a stub is its handler id in the runtime (and in the progress annotations
 * on the objects), so it must stay stable across kopf-gen versions.
 */
export const STUB_EVENTS = ['create', 'update', 'delete'] as const;
export type StubEvent = (typeof STUB_EVENTS)[number];

export function isStubEvent(name: string): name is StubEvent {
  return (STUB_EVENTS as readonly string[]).includes(name);
}

/** `createWidget`, `updateWidget`, `deleteWidget`. */
export function stubFunctionName(event: StubEvent, kind: string): string {
  return `${event}${kind}`;
}

/** The partial in `templates/stubs/` that renders the stub of an event. */
export function stubPartialName(event: StubEvent): string {
  return `on-${event}`;
}
