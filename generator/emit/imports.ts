/**
 * The names a module takes from `kopf`, under an alias where the module already uses the name
 * itself (a kind named `Condition` keeps its name; kopf's becomes `KopfCondition`).
 */
import type { NameSpace } from './export-names.ts';

export class KopfImports {
  private readonly names: NameSpace;
  private readonly used = new Map<string, string>();

  constructor(names: NameSpace) {
    this.names = names;
  }

  /** The local name to write for kopf's `name`. */
  use(name: string): string {
    let local = this.used.get(name);
    if (local === undefined) {
      local = this.names.has(name) ? this.names.take(`Kopf${name}`) : name;
      if (local === name) this.names.take(name);
      this.used.set(name, local);
    }
    return local;
  }

  /** `import type { A, B as KopfB } from 'kopf';` or nothing. */
  statement(): string {
    if (!this.used.size) return '';
    const specifiers = [...this.used]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, local]) => (name === local ? name : `${name} as ${local}`));
    const line = `import type { ${specifiers.join(', ')} } from 'kopf';`;
    if (line.length <= 110) return `${line}\n`;
    return `import type {\n${wrap(specifiers, '  ', 108)}\n} from 'kopf';\n`;
  }
}

function wrap(items: readonly string[], indent: string, width: number): string {
  const lines: string[] = [];
  let line = indent;
  for (const item of items) {
    const piece = `${item},`;
    if (line.length > indent.length && line.length + 1 + piece.length > width) {
      lines.push(line);
      line = indent;
    }
    line += line.length > indent.length ? ` ${piece}` : piece;
  }
  if (line.length > indent.length) lines.push(line);
  return lines.join('\n');
}
