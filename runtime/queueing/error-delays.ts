/**
 * The walk through `queueing.errorDelays` (Kopf's throttling delays) that failures in a row take:
 * each failure waits the next delay, and once they run out the last one repeats.
 */
export class ErrorDelays {
  readonly #delays: Iterator<number>;
  #last: number | undefined;

  constructor(delays: Iterable<number>) {
    this.#delays = delays[Symbol.iterator]();
  }

  /** The seconds to wait after the next failure in a row; `undefined` if there are no delays at all. */
  next(): number | undefined {
    const next = this.#delays.next();
    if (!next.done) this.#last = next.value;
    return this.#last;
  }
}
