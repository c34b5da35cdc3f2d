/**
 * A project folder for kopf-gen's tests, inside a folder of its own, so that a write that escapes
 * the project is seen too: its CRDs, its handler files (`src/handlers`), the generated modules
 * (`src/generated`), and a listing of everything in the surrounding folder.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

/** What names a handler file: the kind's group and plural. */
interface KindPath {
  readonly group: string;
  readonly plural: string;
}

export interface Project {
  readonly root: string;
  /** `<root>/crds`, where the CRD files go. */
  readonly crds: string;
  readonly outDir: string;
  readonly stubsDir: string;
  /** The handler file of a kind: `<stubsDir>/<group>/<plural>.ts`. */
  file(kind: KindPath): string;
  /** Writes a handler file as the user would, before or after kopf-gen ran. */
  write(kind: KindPath, text: string): void;
  /** Every file, folder and link around the root, the root included (relative, sorted). */
  listing(): string[];
  dispose(): void;
}

export function tempProject(): Project {
  const sandbox = mkdtempSync(join(tmpdir(), 'kopf-gen-project-'));
  const root = join(sandbox, 'project');
  const crds = join(root, 'crds');
  mkdirSync(crds, { recursive: true });
  const stubsDir = join(root, 'src', 'handlers');
  const file = (kind: KindPath) => join(stubsDir, kind.group, `${kind.plural}.ts`);
  return {
    root,
    crds,
    outDir: join(root, 'src', 'generated'),
    stubsDir,
    file,
    write: (kind, text) => {
      mkdirSync(dirname(file(kind)), { recursive: true });
      writeFileSync(file(kind), text);
    },
    listing: () => list(sandbox),
    dispose: () => rmSync(sandbox, { recursive: true, force: true }),
  };
}

function list(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    out.push(relative(base, path));
    if (lstatSync(path).isDirectory()) out.push(...list(path, base));
  }
  return out;
}
