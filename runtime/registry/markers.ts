/**
 * Marker values for label, annotation and field filters: "present with any value" and "absent".
 * Unique symbols, so they can never be confused with a real value.
 */
export const PRESENT: unique symbol = Symbol('kopf.PRESENT');
export const ABSENT: unique symbol = Symbol('kopf.ABSENT');
export type Presence = typeof PRESENT | typeof ABSENT;
