/**
 * `node scripts/command-entries.ts [--check]`: the commands' entry has one source,
 * scripts/command-entry.js. Each package's command (kopf, kopf-gen, create-kopf-operator) must
 * check the Node against its floor before it imports anything, in plain JavaScript in its own
 * bin/ (the packages are installed apart); so each package's bin/ holds a copy of the source,
 * which this writes. With `--check` it writes nothing and names the copies that differ (exit 1);
 * `npm run lint` checks the same, so that a copy cannot drift from its source.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
/** The one source of the commands' entries, from the repository's root. */
export const ENTRY_SOURCE = 'scripts/command-entry.js';

/** The copies: each workspace package's commands written in JavaScript (`bin` targets `./….js`), from the root. */
export function commandEntries(root = ROOT): string[] {
  const { workspaces } = readJson(join(root, 'package.json')) as { workspaces?: string[] };
  return (workspaces ?? []).flatMap((dir) => {
    const { bin } = readJson(join(root, dir, 'package.json')) as { bin?: string | Record<string, string> };
    const targets = typeof bin === 'string' ? [bin] : Object.values(bin ?? {});
    return targets.filter((target) => target.endsWith('.js')).map((target) => join(dir, target));
  });
}

/** The copies that are missing or differ from the source. */
export function driftedEntries(root = ROOT): string[] {
  const source = readFileSync(join(root, ENTRY_SOURCE), 'utf8');
  return commandEntries(root).filter((entry) => {
    const path = join(root, entry);
    return !existsSync(path) || readFileSync(path, 'utf8') !== source;
  });
}

/** Writes the source over every copy that differs from it; returns the copies written. */
export function writeEntries(root = ROOT): string[] {
  const source = readFileSync(join(root, ENTRY_SOURCE), 'utf8');
  const written = driftedEntries(root);
  for (const entry of written) {
    const path = join(root, entry);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, source);
    chmodSync(path, 0o755); // a command, run through its shebang
  }
  return written;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

if (import.meta.main) {
  if (process.argv.includes('--check')) {
    const drifted = driftedEntries();
    for (const entry of drifted) console.error(`${entry} differs from its one source, ${ENTRY_SOURCE}.`);
    if (drifted.length) console.error('Edit the source, then run: node scripts/command-entries.ts');
    process.exitCode = drifted.length ? 1 : 0;
  } else {
    for (const entry of writeEntries()) console.log(`${entry}: written from ${ENTRY_SOURCE}`);
  }
}
