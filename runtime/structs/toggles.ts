/**
 * Named on/off switches whose set is on while any of them is on: the reasons an operator is paused
 * (a peer of higher priority in one peering object, a missing peering CRD, a lease held by another
 * replica). Whoever pauses owns a toggle and turns it; whoever obeys watches the set, and does not
 * need to know who paused it or why.
 */
export class Toggle {
  readonly name: string;
  #on: boolean;
  readonly #set: ToggleSet;

  constructor(set: ToggleSet, name: string, on: boolean) {
    this.#set = set;
    this.name = name;
    this.#on = on;
  }

  get on(): boolean { return this.#on; }

  turn(on: boolean): void {
    if (this.#on === on) return;
    this.#on = on;
    this.#set.changed();
  }
}

type Listener = (on: boolean) => void;

export class ToggleSet {
  readonly #toggles = new Set<Toggle>();
  readonly #listeners = new Set<Listener>();
  #was = false;

  /** A new toggle of this set, on or off from the start. */
  make(name: string, on = false): Toggle {
    const toggle = new Toggle(this, name, on);
    this.#toggles.add(toggle);
    this.changed();
    return toggle;
  }

  /** Forgets a toggle: its owner is gone, and so is its reason to pause. */
  drop(toggle: Toggle): void {
    if (this.#toggles.delete(toggle)) this.changed();
  }

  get on(): boolean {
    for (const toggle of this.#toggles) if (toggle.on) return true;
    return false;
  }

  /** The names of the toggles that are on: what keeps the set on, for the log lines. */
  blockers(): string[] {
    return [...this.#toggles].filter((t) => t.on).map((t) => t.name);
  }

  /** Calls `listener` at each change of the set's state (not of each toggle); returns the unsubscription. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves `true` once the set is `on` (or off, as asked); `false` if the signal aborts first. */
  wait(on: boolean, signal?: AbortSignal): Promise<boolean> {
    if (this.on === on) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (reached: boolean) => {
        unsubscribe();
        signal?.removeEventListener('abort', abort);
        resolve(reached);
      };
      const abort = () => done(false);
      const unsubscribe = this.subscribe((now) => { if (now === on) done(true); });
      signal?.addEventListener('abort', abort, { once: true });
    });
  }

  /** A signal that aborts when the set turns on (at once if it is on), or when `parent` aborts. */
  untilOn(parent: AbortSignal): { signal: AbortSignal; dispose: () => void } {
    const controller = new AbortController();
    if (this.on) controller.abort();
    const unsubscribe = this.subscribe((on) => { if (on) controller.abort(); });
    return { signal: AbortSignal.any([controller.signal, parent]), dispose: unsubscribe };
  }

  /** @internal Told by the toggles of a change; tells the listeners when the set's state changed. */
  changed(): void {
    const now = this.on;
    if (now === this.#was) return;
    this.#was = now;
    for (const listener of [...this.#listeners]) listener(now);
  }
}
