/**
 * The reconciles an operator has run so far: both operators print their count on SIGUSR2
 * ("Reconciles: N."), so that the count and the CPU time can be read at the same moments.
 */
import type { RunningOperator } from '../../runtime/testing.ts';

const COUNT = /^Reconciles: (\d+)\.$/;

/** The count in an operator's line, or null if the line is not a count. */
export function reconcileCountOf(line: string): number | null {
  const match = COUNT.exec(line.trim());
  return match ? Number(match[1]) : null;
}

/** Asks the operator for its count and waits for the answer. */
export async function reconcileCount(operator: RunningOperator): Promise<number> {
  const since = operator.lines.length;
  process.kill(operator.pid, 'SIGUSR2');
  return reconcileCountOf(await operator.waitFor(COUNT, { since, timeout: 30_000 }))!;
}
