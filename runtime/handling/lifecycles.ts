/**
 * Lifecycles choose which of the handlers that are due run in this cycle (Kopf's lifecycles).
 * The default, `asap`, runs one handler per cycle — the one with the fewest attempts, ties in
 * registration order — so every handler's progress is persisted before the next one starts.
 */

export interface Candidate {
  retries: number;
}

export type Lifecycle = <C extends Candidate>(candidates: readonly C[]) => C[];

export const asap: Lifecycle = (candidates) => {
  let best: (typeof candidates)[number] | undefined;
  for (const c of candidates) if (!best || c.retries < best.retries) best = c;
  return best ? [best] : [];
};

export const allAtOnce: Lifecycle = (candidates) => [...candidates];

export const oneByOne: Lifecycle = (candidates) => candidates.slice(0, 1);

export const shuffled: Lifecycle = (candidates) => {
  const out = [...candidates];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

export const randomized: Lifecycle = (candidates) => shuffled(candidates).slice(0, 1);

export const lifecycles = { asap, allAtOnce, oneByOne, shuffled, randomized } as const;
