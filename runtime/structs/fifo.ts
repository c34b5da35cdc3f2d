/**
 * A first-in-first-out queue whose `shift()` moves nothing: a taken slot is cleared, and the array
 * is compacted only once taken slots are most of it. A watch's buffered events and the objects
 * waiting for a worker both grow to thousands in a burst, where `Array#shift` would be linear.
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, taken out; `undefined` if there is none. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Takes every item out, oldest first. */
  drain(): T[] {
    const rest = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return rest;
  }
}
