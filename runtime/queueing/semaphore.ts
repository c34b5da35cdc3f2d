/** A counting semaphore with FIFO fairness; `limit` of `null` means unlimited. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limit: number | null;
  constructor(limit: number | null) { this.limit = limit; }

  async acquire(): Promise<void> {
    if (this.limit === null || this.active < this.limit) { this.active++; return; }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else this.active--;
  }
}
