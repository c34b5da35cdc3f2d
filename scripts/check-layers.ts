/**
 * Import contracts, checked on every `npm run lint`; the rules live in `scripts/layers.json`:
 * - layers: within a package, a file imports from its own layer or a lower one, never a higher one;
 * - independence: the engines of a group never import each other (they meet in the layers below);
 * - no import cycles between files, type-only imports included (a cycle is reported with its files);
 * - packages stay out of places they do not belong (the runtime never pulls in generator-only packages).
 * While a known cycle or a known crossing remains, it is listed in `layers.json` by its files; the
 * check fails on any other, and on a listed one that is gone (so that the list only shrinks).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

interface Layer { name: string; paths: string[] }
interface Group { name: string; modules: string[] }
interface Rules {
  comment: string[];
  layers: Record<string, Layer[]>;
  independence: Group[];
  knownCrossings: string[];
  knownCycles: string[][];
  forbiddenPackages: Record<string, string[]>;
}

/** The repository checked: this one, or the one given as the first argument (the tests' small trees). */
const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const rules = JSON.parse(readFileSync(join(root, 'scripts', 'layers.json'), 'utf8')) as Rules;
const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(m?ts)$/.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

const under = (rel: string, prefix: string): boolean => rel === prefix || rel.startsWith(prefix);

/** The file's package (its top folder with a slash) and its layer's index there, -1 if none. */
function placeOf(rel: string): { pkg: string; layer: number } {
  const pkg = `${rel.split('/')[0]}/`;
  const layers = rules.layers[pkg] ?? [];
  return { pkg, layer: layers.findIndex((layer) => layer.paths.some((p) => under(rel, p))) };
}

/** Every relative import of every file of the packages, by repository-relative paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const top of ['runtime', 'generator', 'create']) {
    if (!existsSync(join(root, top))) continue;
    for (const file of sourceFiles(join(root, top))) {
      const targets: string[] = [];
      const packages: string[] = [];
      for (const match of readFileSync(file, 'utf8').matchAll(importRe)) {
        const spec = match[1] ?? match[2];
        if (spec.startsWith('.')) targets.push(relative(root, resolve(dirname(file), spec)));
        else packages.push(spec);
      }
      graph.set(relative(root, file), targets);
      checkPackages(relative(root, file), packages);
    }
  }
  return graph;
}

const problems: string[] = [];

function checkPackages(rel: string, specs: string[]): void {
  for (const spec of specs) {
    const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    for (const [prefix, banned] of Object.entries(rules.forbiddenPackages)) {
      if (rel.startsWith(prefix) && banned.includes(pkg)) {
        problems.push(`${rel}: imports ${pkg}, which ${prefix} must not depend on`);
      }
    }
  }
}

function checkLayers(rel: string, target: string): void {
  const own = placeOf(rel);
  const theirs = placeOf(target);
  const layers = rules.layers[own.pkg] ?? [];
  if (theirs.pkg !== own.pkg) {
    problems.push(`${rel}: imports ${target}, outside its package (${own.pkg}); packages reach each other by name`);
  } else if (layers.length && own.layer < 0) {
    problems.push(`${rel}: not in any layer of scripts/layers.json; add its folder there`);
  } else if (own.layer >= 0 && theirs.layer > own.layer) {
    problems.push(`${rel} (layer ${layers[own.layer].name}) imports ${target} ` +
      `(layer ${layers[theirs.layer].name}): a lower layer may not import a higher one`);
  }
}

/** The crossing `from -> to` between two modules of one independence group, if it is one. */
function crossingOf(rel: string, target: string): string | undefined {
  for (const group of rules.independence) {
    const own = group.modules.find((m) => under(rel, m));
    const theirs = group.modules.find((m) => under(target, m));
    if (own && theirs && own !== theirs) return `${rel} -> ${target}`;
  }
  return undefined;
}

/** The strongly connected parts of the graph with more than one file (or a file importing itself). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string;
    do { member = stack.pop()!; onStack.delete(member); part.push(member); } while (member !== file);
    if (part.length > 1 || graph.get(file)!.includes(file)) cycles.push(part.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** Compares what was found with what is known: anything new fails, and so does a known one now gone. */
function compareKnown(kind: string, found: string[], known: string[], list: string): void {
  for (const item of found) if (!known.includes(item)) problems.push(`${kind}: ${item}`);
  for (const item of known) {
    if (!found.includes(item)) problems.push(`${kind} listed in layers.json "${list}" is gone; remove it: ${item}`);
  }
}

const graph = importGraph();
const crossings: string[] = [];
for (const [rel, targets] of graph) {
  for (const target of targets) {
    checkLayers(rel, target);
    const crossing = crossingOf(rel, target);
    if (crossing && !crossings.includes(crossing)) crossings.push(crossing);
  }
}
compareKnown('independent engines import each other', crossings, rules.knownCrossings, 'knownCrossings');
const cycles = cyclesOf(graph).map((files) => files.join(' <-> '));
compareKnown('import cycle', cycles, rules.knownCycles.map((files) => [...files].sort().join(' <-> ')), 'knownCycles');

if (problems.length) {
  console.error(`Import-layer check failed (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
const known = `${rules.knownCycles.length} known cycles, ${rules.knownCrossings.length} known crossings`;
console.log(`Import layers: ok (${known})`);
