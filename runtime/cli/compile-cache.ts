/**
 * Node's compile cache for `kopf run`: compiled code, and on Node 24 also the output of type
 * stripping, kept on disk between runs. A warm start then neither parses the runtime again nor
 * loads Node's TypeScript stripper (amaro), which otherwise stays in the operator's memory for its
 * whole life (measured in bench/README.md, "Figures behind the runtime's choices"). It is Node's
 * own cache, keyed by the sources' contents and Node's version; it never stops a start (a folder
 * it cannot write is skipped), and `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 *
 * Whoever can write into the cache's folder decides what code runs: an entry holds the code that
 * stands for a source file. So the folder is the user's own: `NODE_COMPILE_CACHE` if the user set
 * it, else one under the user's cache folder (`XDG_CACHE_HOME`, `~/.cache`), else one in the
 * temporary folder named with the user's id; created 0700. A folder that is not a directory of
 * this user's, or that others may write into, is not used: the run goes on without the cache.
 */
import { mkdirSync } from 'node:fs';
import module from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { notOwnPath } from '../files/ownership.ts';

const FOLDER = 'node-compile-cache';

/** The folder for the cache, or why there is none; decided once per process. */
export type CompileCache = { folder: string } | { refused: string };

let decided: CompileCache | undefined;

/**
 * The cache folder of the current user, created if absent and checked if present: the first of
 * the candidates that is usable, or the reasons none is.
 */
export function compileCache(env: NodeJS.ProcessEnv = process.env): CompileCache {
  const reasons: string[] = [];
  for (const folder of candidates(env)) {
    const refused = unsafe(folder);
    if (refused === undefined) return { folder };
    reasons.push(`${folder} ${refused}`);
  }
  return { refused: reasons.join('; ') };
}

/** Under the user's cache folder first (it outlives reboots), else in the temporary folder. */
function candidates(env: NodeJS.ProcessEnv): string[] {
  const inTemp = join(tmpdir(), `kopf-${FOLDER}-${process.getuid?.() ?? 'user'}`);
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return [join(env.XDG_CACHE_HOME, 'kopf', FOLDER), inTemp];
  try {
    return [join(homedir(), '.cache', 'kopf', FOLDER), inTemp];
  } catch {
    return [inTemp]; // a user without a home folder
  }
}

/**
 * Why the folder must not hold the cache of the user `uid`, or `undefined` if it may (then it
 * exists). Without user ids (Windows), a folder under the user's profile is the user's.
 */
export function unsafe(folder: string, uid = process.getuid?.()): string | undefined {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    return `cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  return notOwnPath(folder, 'directory', uid);
}

/** This process's decision: the user's own, a checked folder, or none. */
function decide(env: NodeJS.ProcessEnv): CompileCache | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (env.NODE_COMPILE_CACHE) return { folder: env.NODE_COMPILE_CACHE };
  return compileCache(env);
}

/**
 * The environment for a process that should start with the cache: it covers the first module
 * too (from TypeScript sources, that is this CLI's own). Unchanged if the user decided already,
 * or if no folder is safe.
 */
export function withCompileCache(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return env;
  const cache = compileCache(env);
  return 'folder' in cache ? { ...env, NODE_COMPILE_CACHE: cache.folder } : env;
}

/** Turns the cache on for the modules loaded from now on (the operator's files among them). */
export function enableCompileCache(): void {
  decided = decide(process.env);
  if (decided && 'folder' in decided) module.enableCompileCache?.(decided.folder);
}

/** Why this process runs without the cache although it was not turned off: for the log. */
export function compileCacheRefusal(): string | undefined {
  return decided && 'refused' in decided ? decided.refused : undefined;
}
