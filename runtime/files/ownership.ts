/**
 * Whoever can write a folder or a file decides what it holds; where that is code to run, it must
 * be the user's own. The one rule for such places (the compile cache, the control plane's
 * binaries): a directory or a regular file, not a symbolic link, owned by the user, and writable
 * by neither the group nor others.
 */
import { lstatSync, type Stats } from 'node:fs';

export type Kind = 'directory' | 'file';

/**
 * Why `path` must not hold what the user `uid` runs, or `undefined` if it may. Without user ids
 * (Windows), only the kind is checked: a folder under the user's profile is the user's.
 */
export function notOwnPath(path: string, kind: Kind, uid = process.getuid?.()): string | undefined {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch (error) {
    return `cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  if (kind === 'directory' ? !stat.isDirectory() : !stat.isFile()) return `is not a ${kind}`;
  if (uid !== undefined && stat.uid !== uid) return `is owned by another user (uid ${stat.uid})`;
  if (uid !== undefined && (stat.mode & 0o022) !== 0) {
    return `is writable by others (mode ${(stat.mode & 0o777).toString(8)})`;
  }
  return undefined;
}
