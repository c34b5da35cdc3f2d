/**
 * A journal of handler runs written by operators under test (`start|end <who> <object> <ms>` per
 * line), and what a test asks of it: that no two operators ran handlers at the same time.
 */
import { readFileSync } from 'node:fs';

export interface Interval { who: string; object: string; start: number; end: number }

/** The journal's handler runs; a run cut by a kill ends at the kill. */
export function intervals(journal: string, kills: Map<string, number>): Interval[] {
  const open = new Map<string, Interval>();
  const done: Interval[] = [];
  for (const line of readFileSync(journal, 'utf8').split('\n').filter(Boolean)) {
    const [kind, who, object, at] = line.split(' ') as [string, string, string, string];
    if (kind === 'start') open.set(`${who} ${object}`, { who, object, start: Number(at), end: Infinity });
    else {
      const run = open.get(`${who} ${object}`)!;
      open.delete(`${who} ${object}`);
      done.push({ ...run, end: Number(at) });
    }
  }
  for (const run of open.values()) done.push({ ...run, end: kills.get(run.who) ?? Infinity });
  return done.sort((a, b) => a.start - b.start);
}

export function overlaps(runs: readonly Interval[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length && runs[j]!.start < runs[i]!.end; j++) {
      if (runs[j]!.who !== runs[i]!.who)
        found.push(`${runs[i]!.who}:${runs[i]!.object} and ${runs[j]!.who}:${runs[j]!.object}`);
    }
  }
  return found;
}
