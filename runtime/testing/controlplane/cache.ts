/**
 * Where kopf keeps machine-wide state outside any repository: built and downloaded binaries, build
 * work folders, lock files. Follows the XDG convention, as Go and most CLI tools do.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cacheFolderName } from './versions.ts';

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kopf');
}

/** The folder of the control plane's binaries: built, downloaded, and the work folders of both. */
export function controlPlaneCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), 'control-plane');
}

/** The folder holding the built binaries of the pinned versions. */
export function binaryCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(controlPlaneCacheDir(env), cacheFolderName());
}

/** The folder where the binaries are built (Go wrapper modules, the build log). */
export function buildWorkDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(controlPlaneCacheDir(env), `build-${cacheFolderName()}`);
}

/** Port reservations shared by all control planes on this machine. */
export function portReservationDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), 'ports');
}
