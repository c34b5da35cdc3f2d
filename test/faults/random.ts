/**
 * Seeded randomness for fault timing, so a failing run can be replayed: the seed is printed, and
 * KOPF_FAULTS_SEED sets it. The processes' own timing still varies between runs; the seed fixes
 * what the test decides (when to kill, when to create, update and delete).
 */
import { randomInt } from 'node:crypto';

export const SEED_ENV = 'KOPF_FAULTS_SEED';

export class SeededRandom {
  readonly seed: number;
  #state: number;

  constructor(seed: number = Number(process.env[SEED_ENV] ?? randomInt(2 ** 31))) {
    this.seed = seed;
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1): mulberry32. */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let x = this.#state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [low, high]. */
  between(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}
