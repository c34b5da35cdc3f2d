/**
 * One condition of an object's `status.conditions` (Kubernetes' `metav1.Condition`), set the way
 * controllers set them: the condition of that type is replaced, the others are kept, and its
 * `lastTransitionTime` moves only when its status changes, so that tools can tell since when an
 * object has been Ready (or not). The list is written whole: a merge patch replaces arrays.
 */
import type { Condition } from '../structs/kubetypes.ts';
import type { KubeObject } from '../structs/resources.ts';
import type { Patch } from '../structs/patches.ts';
import { isMapping } from '../structs/diffs.ts';

export type { Condition };

/** What a condition says; the rest (times, generation) is filled in. */
export interface ConditionInput {
  /** `Ready`, `Stalled`, or a type of the operator's own, in CamelCase. */
  type: string;
  status: Condition['status'];
  /** A programmatic identifier of the reason, in CamelCase. */
  reason: string;
  /** For people; may be empty. */
  message?: string;
}

/**
 * Sets one condition in `patch.status.conditions`: the list the patch holds already (an earlier
 * call in the same handler), else the object's, with this condition replaced or added. The
 * condition's `observedGeneration` is the object's generation now.
 */
export function setCondition<T extends KubeObject>(
  { body, patch }: { body: T; patch: Patch<T> }, condition: ConditionInput,
): Condition {
  // Any kind's patch: its status may be typed without conditions (they go there all the same).
  const untyped = patch as unknown as Patch<KubeObject>;
  const list = withCondition(currentConditions(body, untyped), condition, generationOf(body), new Date());
  untyped.status.conditions = list;
  return list.find((c) => c.type === condition.type)!;
}

/** The conditions that a patch would leave on the object: the patch's own list, else the object's. */
export function currentConditions(body: KubeObject, patch?: Patch<KubeObject>): Condition[] {
  const patched = patch?.status.conditions;
  const stored = (body.status as { conditions?: unknown } | undefined)?.conditions;
  return conditionList(patched !== undefined ? patched : stored);
}

/** A new list with `input` set (see `setCondition`), at the given generation and time. */
export function withCondition(
  list: readonly Condition[], input: ConditionInput, generation: number | undefined, now: Date,
): Condition[] {
  const earlier = list.find((c) => c.type === input.type);
  const condition: Condition = {
    type: input.type,
    status: input.status,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    lastTransitionTime: earlier?.status === input.status ? earlier.lastTransitionTime : rfc3339(now),
    reason: input.reason,
    message: input.message ?? '',
  };
  return earlier ? list.map((c) => (c === earlier ? condition : c)) : [...list, condition];
}

export function generationOf(body: KubeObject): number | undefined {
  const generation = body.metadata?.generation;
  return typeof generation === 'number' && Number.isInteger(generation) ? generation : undefined;
}

/**
 * The conditions of a list as stored: anything that is not a condition with a type is left out
 * (the object is read from the cluster, where anyone may have written anything).
 */
function conditionList(value: unknown): Condition[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is Condition => isMapping(item) && typeof item.type === 'string');
}

/** A time as Kubernetes writes `metav1.Time`: seconds, in UTC. */
function rfc3339(time: Date): string {
  return `${time.toISOString().slice(0, 19)}Z`;
}
