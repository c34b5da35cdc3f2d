#!/usr/bin/env node
/**
 * The command's entry, the same file in kopf, kopf-gen and create-kopf-operator (the packages are
 * installed apart; each command is named as its package): it checks this Node against the
 * package's floor (`engines.node`, `>=MAJOR.MINOR`), then starts the command line (cli/main.ts).
 *
 * Plain JavaScript that any Node parses: a Node older than the floor cannot load the command's
 * TypeScript at all (Node 20 refuses a `.ts` file before running a line of it), and a compiled
 * module may use what it lacks. So the check comes first, in this file, and the rest is imported
 * only after it.
 *
 * Its one source is the repository's scripts/command-entry.js: the packages' bin/ files are copies
 * of it, written and checked (by `npm run lint`) with scripts/command-entries.ts, and a release
 * publishes the source itself (scripts/build-package.ts). Edit the source, never a copy.
 */
import { readFileSync } from 'node:fs';


function floorOf(manifest) {
  const match = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec((manifest.engines && manifest.engines.node) || '');
  return match ? match[1] : null;
}

function olderThan(version, floor) {
  const have = version.split('.').map(Number);
  const need = floor.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] || 0) !== need[i]) return (have[i] || 0) < need[i];
  }
  return false;
}

/**
 * What to do, in ways that work where only the npm registry is reachable (no nvm, no downloads
 * from nodejs.org): the registry's `node` package, for one command or for the project.
 */
function floorMessage(name, floor, node) {
  const major = floor.split('.')[0];
  return `${name} needs Node ${floor} or newer; this is ${node}.\n`
    + `Install Node ${major} or newer and try again; from the npm registry alone, either:\n`
    + `  npx -p node@${major} -p ${name} ${name} …   runs this command on Node ${major}, or\n`
    + `  npm install node@${major}   in the project: its npm scripts and npx then run on Node ${major}.\n`;
}

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const floor = floorOf(manifest);
if (floor && olderThan(process.versions.node, floor)) {
  const node = `Node ${process.versions.node} (${process.execPath})`;
  process.stderr.write(floorMessage(manifest.name, floor, node));
  // Not process.exit(): the message must reach a pipe in full first.
  process.exitCode = 1;
} else {
  import('../cli/main.ts').then((cli) => cli.start());
}
