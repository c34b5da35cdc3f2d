#!/usr/bin/env node
/**
 * The `kopf` command: a table of subcommands, each loaded only when called, so that `kopf run`
 * does not pay for the control plane's code and `kopf control-plane` not for the operator's.
 * Each subcommand module exports `main(argv): Promise<number>` (the exit code).
 */
import { readFileSync } from 'node:fs';
import { enableCompileCache } from './compile-cache.ts';
import { tuneHeap } from './heap.ts';
import { returnMemoryWhenIdle } from './idle-memory.ts';
import { refusedArgsMessage, usageError } from './usage.ts';

interface Subcommand {
  summary: string;
  load: () => Promise<{ main: (argv: string[]) => Promise<number> }>;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  run: { summary: 'Run an operator from files of handlers.', load: () => import('./run.ts') },
  'control-plane': {
    summary: 'Start a local kube-apiserver + etcd (or only build/find their binaries: --build-only).',
    load: () => import('./controlplane.ts'),
  },
  demo: { summary: 'Start the local control plane, show it serving, stop it.', load: () => import('./demo.ts') },
  dev: {
    summary: 'Run an operator on the current cluster, or on a local control plane with sample objects.',
    load: () => import('./dev.ts'),
  },
  freeze: {
    summary: 'Pause the operators of a lower priority for a while (peering).',
    load: () => import('./freeze.ts'),
  },
  resume: {
    summary: 'End a freeze (peering).',
    load: async () => ({ main: (await import('./freeze.ts')).resume }),
  },
  peering: { summary: 'Print the peering CRDs and default peering objects.', load: () => import('./peering.ts') },
  rbac: { summary: 'Print the RBAC an operator needs, derived from its handlers.', load: () => import('./rbac.ts') },
  'migrate-storage': {
    summary: 'Rewrite a CRD\'s objects in its storage version and trim its storedVersions.',
    load: () => import('./migrate-storage.ts'),
  },
};

/** What `kopf` alone or `kopf --help` prints: the commands and where to read more. */
function overview(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  const lines = Object.entries(SUBCOMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  const help = '`kopf <command> --help` describes a command\'s options; `kopf --version` prints the version.';
  return `Usage: kopf <command> [options]\n\nCommands:\n${lines.join('\n')}\n\n${help}\n`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(overview());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${ownVersion()}\n`);
    return 0;
  }
  const command = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`kopf: unknown command "${name}"\n\n${overview()}`);
    return 2;
  }
  try {
    return await (await command.load()).main(rest);
  } catch (error) {
    // Options that `parseArgs` refuses are usage errors, as the commands' own checks of them.
    if (!USAGE_ERRORS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    return usageError(name, refusedArgsMessage(error as Error));
  }
}

function ownVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return String((manifest as { version?: unknown }).version);
}

const USAGE_ERRORS = new Set(
  ['ERR_PARSE_ARGS_UNKNOWN_OPTION', 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE', 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL']
);

/**
 * Runs the command line of this process. The `kopf` bin (bin/kopf.js) calls it once it has checked
 * that this Node is new enough; a run of this file itself (the tests, `kopf/testing`'s runner) starts
 * here too.
 */
export function start(): void {
  if (process.argv[2] === 'run') {
    tuneHeap();
    enableCompileCache();
    returnMemoryWhenIdle();
  }
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? `kopf: ${error.message}` : error);
      process.exitCode = 1;
    },
  );
}

if (import.meta.main) start();
