/**
 * Compiling generated code with a TypeScript compiler's command line (5.9 from the repository,
 * 7.x from a cache outside it), one program per compiler, and reading its diagnostics.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../../..');

export interface TsDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: string;
  readonly message: string;
}

export interface Compiler {
  readonly name: string;
  /** The JavaScript entry of its `tsc`. */
  readonly tsc: string;
}

export const TS5: Compiler = { name: 'TypeScript 5.9', tsc: join(REPO, 'node_modules/typescript/bin/tsc') };

/**
 * TypeScript 7 (the native port), installed on demand into ~/.cache/kopf/typescript-7: never
 * into the repository, whose own compiler stays 5.9.
 */
export function typescript7(): Compiler {
  const dir = join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'kopf', 'typescript-7');
  const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    mkdirSync(dir, { recursive: true });
    const npm = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, 'typescript@7'],
      { encoding: 'utf8' },
    );
    if (npm.status !== 0) throw new Error(`could not install typescript@7 into ${dir}:\n${npm.stdout}\n${npm.stderr}`);
  }
  const version = spawnSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' });
  if (version.status !== 0 || !/^Version 7\./.test(version.stdout)) {
    throw new Error(`typescript@7 in ${dir} does not run here: ${version.stdout}${version.stderr}`);
  }
  return { name: `TypeScript ${version.stdout.trim().replace('Version ', '')}`, tsc };
}

/** Writes a strict tsconfig for the files and a `kopf` path mapping, and a module package.json. */
export function writeProject(root: string, include: readonly string[], kopf: string): string {
  writeFileSync(join(root, 'package.json'), '{ "type": "module", "private": true }\n');
  const config = {
    compilerOptions: {
      target: 'es2023', lib: ['es2023'], module: 'nodenext', moduleResolution: 'nodenext',
      strict: true, noEmit: true, allowImportingTsExtensions: true, verbatimModuleSyntax: true,
      erasableSyntaxOnly: true, isolatedModules: true, skipLibCheck: true, types: [],
      paths: { kopf: [kopf] },
    },
    include,
  };
  const path = join(root, 'tsconfig.json');
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

export function compile(compiler: Compiler, tsconfig: string): {
  status: number | null;
  diagnostics: TsDiagnostic[];
  output: string
} {
  const cwd = dirname(tsconfig);
  const run = spawnSync(
    process.execPath,
    [compiler.tsc, '-p', tsconfig, '--pretty', 'false'],
    { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const output = `${run.stdout}${run.stderr}`;
  const diagnostics: TsDiagnostic[] = [];
  for (const line of output.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line);
    if (m)
      diagnostics.push(
        { file: resolve(cwd, m[1]!), line: Number(m[2]), column: Number(m[3]), code: m[4]!, message: m[5]! }
      );
  }
  return { status: run.status, diagnostics, output };
}
