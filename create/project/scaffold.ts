/**
 * A new operator project in a folder: the files from the templates, the generated types (kopf-gen,
 * so that the project type-checks before its first install), and `npm install` unless declined.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { generate } from 'kopf-gen';
import { copyVendored, dependencySource } from './dependencies.ts';
import type { DependencySource } from './dependencies.ts';
import type { ProjectOptions } from './options.ts';
import { resourceNames, validate } from './options.ts';
import { renderProject } from './project-files.ts';

export interface ScaffoldOptions extends ProjectOptions {
  /** A checkout of kopf or a folder of its packed tarballs, instead of the registry. */
  readonly from?: string;
  /** Run `npm install` in the new project. */
  readonly install: boolean;
  /** Progress lines for the user. */
  readonly log?: (line: string) => void;
}

export interface ScaffoldResult {
  /** The project's files, relative to its folder (the generated ones not included). */
  readonly files: readonly string[];
  readonly dependencies: DependencySource;
  readonly installed: boolean;
}

/** A project that cannot be made as asked: the message says why and what to do. */
export class ScaffoldError extends Error {}

const MANIFEST = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
export const OWN_VERSION: string = (JSON.parse(MANIFEST) as { version: string }).version;

export async function scaffold(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const log = options.log ?? (() => {});
  const problems = validate(options);
  if (problems.length) throw new ScaffoldError(problems.join('\n'));
  if (existsSync(options.dir) && readdirSync(options.dir).length > 0) {
    throw new ScaffoldError(`${options.dir} is not empty: choose a new folder, or empty this one first`);
  }
  let dependencies: DependencySource;
  try {
    dependencies = dependencySource(options.from, OWN_VERSION);
  } catch (error) {
    throw new ScaffoldError((error as Error).message);
  }
  const names = resourceNames(options);
  log(`Creating an operator for ${names.kind} (${names.crdName}, ${names.scope}) in ${options.dir}`);
  const files = renderProject(options, dependencies);
  copyVendored(dependencies, options.dir);
  const generated = await generate({ inputs: ['crds/'], outDir: 'src/generated', cwd: options.dir });
  log(`Wrote ${files.length} files, and ${generated.files.length} generated ones in src/generated/ (kopf-gen)`);
  if (options.install) {
    log(`Installing dependencies (kopf and kopf-gen from ${dependencies.description})…`);
    await npmInstall(options.dir);
  }
  return { files, dependencies, installed: options.install };
}

/** `npm install` in the project, its output shown as it comes. */
function npmInstall(dir: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
    child.once('error', (error) => reject(new ScaffoldError(`npm install could not start: ${error.message}`)));
    child.once('close', (code) => {
      if (code === 0) resolvePromise();
      else reject(new ScaffoldError(`npm install failed (exit ${code}); the project is in place: `
        + `fix the cause and run npm install in ${dir}`));
    });
  });
}
