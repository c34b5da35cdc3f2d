/**
 * Import-layer check: lower layers of the runtime never import higher ones, and packages
 * stay out of places they do not belong (the runtime never pulls in generator-only packages).
 * The rules live in `scripts/layers.json`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

interface Layer { name: string; paths: string[] }
interface Rules { layers: Layer[]; forbiddenPackages: Record<string, string[]> }

const root = resolve(import.meta.dirname, '..');
const rules = JSON.parse(readFileSync(join(import.meta.dirname, 'layers.json'), 'utf8')) as Rules;

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(m?ts)$/.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

function layerOf(file: string): number {
  const rel = relative(root, file);
  return rules.layers.findIndex((layer) => layer.paths.some((p) => rel === p || rel.startsWith(p)));
}

const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

const problems: string[] = [];
for (const top of ['runtime', 'generator', 'create']) {
  for (const file of sourceFiles(join(root, top))) {
    const rel = relative(root, file);
    const text = readFileSync(file, 'utf8');
    const own = layerOf(file);
    for (const match of text.matchAll(importRe)) {
      const spec = match[1] ?? match[2];
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        const theirs = layerOf(target);
        const pkgTop = rel.split('/')[0];
        if (!relative(root, target).startsWith(`${pkgTop}/`)) {
          problems.push(`${rel}: imports ${spec}, outside its package (${pkgTop}/); packages reach each other by name`);
        } else if (own >= 0 && theirs > own) {
          problems.push(`${rel} (layer ${rules.layers[own].name}) imports ${spec} (layer ${rules.layers[theirs].name}): a lower layer may not import a higher one`);
        } else if (rel.startsWith('runtime/') && own < 0) {
          problems.push(`${rel}: not in any layer of scripts/layers.json; add its folder there`);
        }
      } else {
        const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        for (const [prefix, banned] of Object.entries(rules.forbiddenPackages)) {
          if (rel.startsWith(prefix) && banned.includes(pkg)) problems.push(`${rel}: imports ${pkg}, which ${prefix} must not depend on`);
        }
      }
    }
  }
}

if (problems.length) {
  console.error(`Import-layer check failed (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('Import layers: ok');
