/**
 * The benchmark's operator in the form a deployment runs: the runtime as the published package
 * (compiled JavaScript, scripts/build-package.ts) and the operator's files with their types
 * already stripped, so that the process never loads Node's TypeScript stripper.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

export interface BuiltOperator {
  /** The compiled CLI's entry point. */
  cli: string;
  /** The package's `kopf` command (bin/kopf.js), as an installed package's user runs it. */
  bin: string;
  /** The operator as JavaScript. */
  file: string;
  /** examples/01-minimal as JavaScript: the smallest operator. */
  minimal: string;
  /** The benchmark's floor (floor.ts) as JavaScript, on the built runtime's modules. */
  floor: string;
  /**
   * Another benchmark's operator (`from`, a path from the repository's root, importing the examples'
   * resource as bench/ does) as JavaScript named `to` beside the others; returns its path.
   */
  add(from: string, to: string): string;
  /** Removes the temporary project. */
  remove(): void;
}

/** Builds the runtime into a temporary project and strips the operator's types next to it. */
export function buildOperator(): BuiltOperator {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-bench-'));
  const pkg = join(dir, 'node_modules', 'kopf');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  execFileSync(
    process.execPath,
    [join(root, 'scripts/build-package.ts'), 'runtime', '--out', pkg],
    { stdio: 'inherit' },
  );
  // The package's dependencies are the workspace's installed ones (as `npm install` would place them).
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>
  };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name));
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const strip = (from: string, to: string, imports: Record<string, string> = {}): void => {
    let code = stripTypeScriptTypes(readFileSync(join(root, from), 'utf8'));
    for (const [before, after] of Object.entries(imports)) code = code.replaceAll(`'${before}'`, `'${after}'`);
    // The runtime's own modules, by path (the floor's): the built package's JavaScript.
    code = code.replaceAll(/'\.\.\/\.\.\/runtime\/([\w/.-]+)\.ts'/g, "'./node_modules/kopf/$1.js'");
    writeFileSync(join(dir, to), code);
  };
  const fromBench = { '../../examples/kopfexample.ts': './kopfexample.js' };
  strip('examples/kopfexample.ts', 'kopfexample.js');
  strip('bench/burst/operator.ts', 'operator.js', fromBench);
  strip('bench/burst/floor.ts', 'floor.js', fromBench);
  strip('examples/01-minimal/example.ts', 'minimal.js', { '../kopfexample.ts': './kopfexample.js' });
  return {
    cli: join(pkg, 'cli', 'main.js'),
    bin: join(pkg, 'bin', 'kopf.js'),
    file: join(dir, 'operator.js'),
    minimal: join(dir, 'minimal.js'),
    floor: join(dir, 'floor.js'),
    add: (from, to) => {
      strip(from, to, fromBench);
      return join(dir, to);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
