/**
 * `<out>/index.ts`: every kind's preferred (storage) version under the kind's own names, except
 * kinds whose names another group's kind also has: those are reached through their group as a
 * namespace (`certManagerIo.Certificate`), so no name is ambiguous.
 */
import { camelCase } from '../model/identifiers.ts';
import { modulePath } from '../model/model.ts';
import { GENERATED_HEADER } from './module.ts';
import type { RenderedModule } from './module.ts';
import { stringLiteral } from './syntax.ts';

type KindExport = RenderedModule['kinds'][number] & { readonly module: string };

export interface IndexFiles {
  /** Path (relative to the output folder) → text. */
  readonly files: ReadonlyMap<string, string>;
}

export function renderIndex(modules: readonly RenderedModule[]): IndexFiles {
  const kinds: KindExport[] = [];
  for (const m of modules) {
    for (const k of m.kinds)
      if (k.resource.preferredVersion === m.version) kinds.push({ ...k, module: modulePath(m.group, m.version) });
  }
  kinds.sort((a, b) => compare(a.resource.group, b.resource.group) || compare(a.resource.kind, b.resource.kind));
  const count = new Map<string, number>();
  for (const k of kinds) for (const name of namesOf(k)) count.set(name, (count.get(name) ?? 0) + 1);
  const isClashing = (k: KindExport): boolean => namesOf(k).some((n) => count.get(n)! > 1);
  const clashing = new Set(kinds.filter(isClashing).map((k) => k.resource.group));

  const files = new Map<string, string>();
  const lines: string[] = [];
  for (const k of kinds) {
    if (isClashing(k)) continue;
    const [value, ...types] = namesOf(k);
    const from = stringLiteral(`./${k.module}`);
    lines.push(`export { ${value} } from ${from};`);
    lines.push(`export type { ${types.sort(compare).join(', ')} } from ${from};`);
  }
  const taken = new Set<string>();
  for (const group of [...clashing].sort(compare)) {
    let ident = camelCase(group);
    for (let n = 2; taken.has(ident); n++) ident = `${camelCase(group)}${n}`;
    taken.add(ident);
    const members = kinds.filter((k) => k.resource.group === group);
    const versions = new Set(members.map((k) => k.module));
    let target: string;
    if (versions.size === 1) {
      target = [...versions][0]!;
    } else {
      target = `${group}/index.ts`;
      files.set(target, groupIndex(group, members));
    }
    lines.push(`export * as ${ident} from ${stringLiteral(`./${target}`)};`);
  }
  const header =
    `${GENERATED_HEADER}\n// Every kind at its storage version, by its own ` +
      `names${clashing.size ? '; kinds whose names clash, through their groups' : ''}.\n`;
  files.set('index.ts', `${header}${lines.length ? `\n${lines.join('\n')}\n` : '\nexport {};\n'}`);
  return { files };
}

/** A group's kinds at their storage versions, for a group whose kinds prefer different versions. */
function groupIndex(group: string, members: readonly KindExport[]): string {
  const lines: string[] = [];
  for (const k of members) {
    const [value, ...types] = namesOf(k);
    const from = stringLiteral(`./${k.module.slice(group.length + 1)}`);
    lines.push(`export { ${value} } from ${from};`);
    lines.push(`export type { ${types.sort(compare).join(', ')} } from ${from};`);
  }
  return `${GENERATED_HEADER}\n// The kinds of ${group}, each at its storage version.\n\n${lines.join('\n')}\n`;
}

function namesOf(k: RenderedModule['kinds'][number]): string[] {
  return [
    k.names.type,
    k.names.input,
    k.names.fields,
    k.names.patch,
    ...(k.spec ? [k.spec] : []),
    ...(k.status ? [k.status] : [])
  ];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
