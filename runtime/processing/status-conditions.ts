/**
 * With `settings.status.conditions`, the status that tools read (`conditions/standing.ts`) goes
 * into the cycle's work: the first write of the plan, with the handlers' results that it speaks
 * of, so that no cycle writes more for it (it is written only when it changes).
 */
import type { KubeObject } from '../structs/resources.ts';
import type { Condition } from '../structs/kubetypes.ts';
import { isEmptyPatch } from '../structs/patches.ts';
import { statusConditions } from '../conditions/standing.ts';
import type { Decision } from './deciding.ts';
import type { ResourceProcessor } from './processor.ts';

export function foldConditions(proc: ResourceProcessor, key: string, body: KubeObject, decision: Decision): void {
  const { cycle } = decision;
  // A deletion's finished cycle lets the object go: nothing is left to describe.
  if (cycle?.kind === 'delete' && cycle.done) return;
  const reconciler = proc.reconciling?.standing(key);
  const work = decision.plan.work;
  // Where no handler ran, nothing new is known unless a reconciler ran: the object keeps what it
  // says. A finished resume writes only with what its handlers write (as Kopf's: nothing otherwise).
  const ran = cycle?.standing?.kind === 'handled' && !(cycle.kind === 'resume' && cycle.done && isEmptyPatch(work));
  if (!ran && !reconciler) return;
  const handlers = cycle?.standing ?? (decision.idle ? { kind: 'unchanged' } as const : undefined);
  if (!handlers) return;
  const set = work.status.conditions as Condition[] | undefined; // a handler's own (`setCondition`)
  const standing = { handlers, reconciler };
  const fragment = statusConditions(body, standing, set, new Date());
  if (!fragment) return;
  const status = fragment.status as { observedGeneration?: number; conditions: Condition[] };
  if (status.observedGeneration !== undefined) work.status.observedGeneration = status.observedGeneration;
  work.status.conditions = status.conditions;
}
