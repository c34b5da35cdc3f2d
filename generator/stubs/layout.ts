/**
 * Where handler files and generated modules are, and how one imports the other.
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { modulePath } from '../model/model.ts';
import { pathInside } from '../paths.ts';
import type { StubResource } from './input.ts';

/** `<stubsDir>/<group>/<plural>.ts`; UnsafePathError unless the group and the plural are plain names. */
export function handlerFilePath(stubsDir: string, kind: Pick<StubResource, 'group' | 'plural'>): string {
  return pathInside(resolve(stubsDir), kind.group, `${kind.plural}.ts`);
}

export function generatedModulePath(outDir: string, group: string, version: string): string {
  return pathInside(resolve(outDir), ...modulePath(group, version).split('/'));
}

/** The barrel that re-exports the storage version of every kind by its name. */
export function generatedIndexPath(outDir: string): string {
  return resolve(outDir, 'index.ts');
}

/** A relative ESM specifier from one file to another: always `./` or `../`, always `/`. */
export function relativeSpecifier(fromFile: string, toFile: string): string {
  const path = relative(dirname(fromFile), toFile).split(sep).join('/');
  return path.startsWith('../') ? path : `./${path}`;
}

/**
 * The absolute source file a relative specifier points to; undefined for package specifiers.
 * `.js` names the `.ts` source, as under `rewriteRelativeImportExtensions` and in bundlers.
 */
export function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  return join(dirname(fromFile), specifier).replace(/\.js$/, '.ts');
}
