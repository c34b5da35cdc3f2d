/**
 * The names of one generated module: every exported name is taken once, collisions get the
 * next free number. Allocation order is fixed by the caller, so the numbering is deterministic.
 */
export class NameSpace {
  private readonly taken = new Set<string>();

  has(name: string): boolean {
    return this.taken.has(name);
  }

  /**
   * Takes `base` (or `base2`, `base3`, …) such that it and each `base + suffix` are free, and
   * takes those too: `Foo` with `Input` reserves `FooInput` alongside.
   */
  take(base: string, suffixes: readonly string[] = []): string {
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base}${n}`;
      if (this.taken.has(name) || suffixes.some((s) => this.taken.has(`${name}${s}`))) continue;
      this.taken.add(name);
      for (const s of suffixes) this.taken.add(`${name}${s}`);
      return name;
    }
  }
}
