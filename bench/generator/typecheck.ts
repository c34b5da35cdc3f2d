/**
 * Type-checking a tool's output with one compiler: the same strict settings for every tool,
 * with a module resolution that takes both extensionless and `.ts` relative imports.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { timed } from './measure.ts';
import type { Run } from './measure.ts';

const TSCONFIG = {
  compilerOptions: {
    target: 'es2023',
    lib: ['es2023'],
    module: 'esnext',
    moduleResolution: 'bundler',
    allowImportingTsExtensions: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  include: ['**/*.ts'],
};

/** Writes the tsconfig and links the packages the output imports (`kopf`, `@kubernetes-models/*`). */
export function prepareTypeCheck(outDir: string, nodeModules: string | undefined): void {
  writeFileSync(join(outDir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  if (nodeModules) symlinkSync(nodeModules, join(outDir, 'node_modules'), 'dir');
}

export interface TypeCheck extends Run {
  /** Errors reported in the output's own files (not in packages it imports). */
  readonly errors: number;
}

export function typeCheck(node: string, tsc: string, outDir: string): TypeCheck {
  const run = timed([node, tsc, '-p', 'tsconfig.json', '--pretty', 'false'], outDir);
  const own = run.stdout.split('\n').filter(
    (line) => /^(?!node_modules\/)[^./][^(]*\(\d+,\d+\): error TS\d+/.test(line)
  );
  return { ...run, errors: own.length };
}

/** The errors column: the output's own errors, and the exit status when tsc failed for other reasons. */
export function describeErrors(check: Pick<TypeCheck, 'errors' | 'status'>): string {
  return check.status !== 0 && check.errors === 0 ? `0 (exit ${check.status})` : String(check.errors);
}
