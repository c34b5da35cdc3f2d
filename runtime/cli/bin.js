#!/usr/bin/env node
// The published package's `kopf` command: the compiled CLI, for Node versions that cannot run
// the TypeScript sources directly.
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(error instanceof Error ? `kopf: ${error.message}` : error);
    process.exitCode = 1;
  },
);
