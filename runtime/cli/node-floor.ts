/**
 * The Node floor of the `kopf` command, from the package's `engines.node` (`>=MAJOR.MINOR`).
 *
 * Checked before anything else runs: on a Node older than 22.18 `import.meta.main` is undefined,
 * so without this check the command would print nothing and exit 0 (a CI step would pass).
 * kopf, kopf-gen and create-kopf-operator each have this file: they are installed apart, and the
 * runtime and the generator may not depend on each other.
 */
import { readFileSync } from 'node:fs';

/** Exits 1 with a message on stderr when this Node is older than the package's floor. */
export function refuseUnsupportedNode(command: string): void {
  const floor = nodeFloor();
  if (!floor || !olderThan(process.versions.node, floor)) return;
  process.stderr.write(`${command}: Node ${floor} or newer is required; this is Node ${process.versions.node} `
    + `(${process.execPath}).\n`);
  process.exit(1);
}

function nodeFloor(): string | undefined {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  const manifest = JSON.parse(text) as { engines?: { node?: string } };
  return /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(manifest.engines?.node ?? '')?.[1];
}

function olderThan(version: string, floor: string): boolean {
  const have = version.split('.').map(Number);
  const need = floor.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) < need[i];
  }
  return false;
}
