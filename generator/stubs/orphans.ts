/**
 * Handler files whose kind is gone from the CRDs. They are the user's code, so they are only
 * reported: deleting or renaming them is the user's decision.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Files shaped `<stubsDir>/<group>/<name>.ts` (tests and declarations aside) not in `expected`, sorted. */
export function findOrphanedHandlerFiles(stubsDir: string, expected: ReadonlySet<string>): string[] {
  const orphans: string[] = [];
  for (const group of list(stubsDir)) {
    const dir = join(stubsDir, group);
    if (!statSync(dir).isDirectory()) continue;
    for (const entry of list(dir)) {
      const file = join(dir, entry);
      if (!isHandlerFileName(entry) || expected.has(file) || !statSync(file).isFile()) continue;
      orphans.push(file);
    }
  }
  return orphans;
}

function isHandlerFileName(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts');
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
