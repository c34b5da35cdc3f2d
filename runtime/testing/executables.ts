/** Finding the programs the test tools run: a file that may be executed, on `PATH` or at a path. */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the folders of `PATH`, as a shell would find it. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name)).find(isExecutable);
}
