/**
 * Kopf's "indices are ready" gate: resource handlers run only when every indexed resource has been
 * listed and every object seen meanwhile indexed, so that no handler sees a partial index at start.
 *
 * Whatever the gate waits for holds it with a token (a stream until its first listing is done, an
 * object until its first event is indexed, the operator until its streams are started); the gate
 * is open while nothing holds it. Waiting is a callback, not a sleeping worker: an object whose
 * handlers wait holds no worker slot, so the objects still to be indexed are never starved of one.
 */
export class IndexReadiness {
  private readonly holders = new Set<unknown>();
  private readonly waiting = new Set<() => void>();

  get open(): boolean { return this.holders.size === 0; }

  /** Closes the gate until `release(token)` (a token held twice is released once). */
  hold(token: unknown): void {
    this.holders.add(token);
  }

  release(token: unknown): void {
    if (!this.holders.delete(token) || !this.open) return;
    const callbacks = [...this.waiting];
    this.waiting.clear();
    for (const callback of callbacks) callback();
  }

  /** Calls `callback` once when the gate opens (at once if it is open); returns its cancellation. */
  whenOpen(callback: () => void): () => void {
    if (this.open) {
      callback();
      return () => undefined;
    }
    this.waiting.add(callback);
    return () => { this.waiting.delete(callback); };
  }
}
