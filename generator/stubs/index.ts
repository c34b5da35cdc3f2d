/**
 * Handler stubs: one user-owned file per kind, `<stubsDir>/<group>/<plural>.ts`, written from the
 * templates when absent and, when present, extended only by what it lacks.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { STUB_EVENTS, stubFunctionName, stubPartialName } from './events.ts';
import { extendHandlerFile } from './extend.ts';
import { formatWholeFile } from './format.ts';
import type { StubKind, StubsExtension, StubsOptions, StubsReport } from './input.ts';
import { generatedIndexPath, generatedModulePath, handlerFilePath, relativeSpecifier } from './layout.ts';
import { findOrphanedHandlerFiles } from './orphans.ts';
import { loadStubTemplates } from './template.ts';
import type { StubTemplates } from './template.ts';

export type { StubKind, StubsExtension, StubsOptions, StubsReport } from './input.ts';
export { STUB_EVENTS, stubFunctionName } from './events.ts';
export type { StubEvent } from './events.ts';

export function generateStubs(kinds: readonly StubKind[], options: StubsOptions): StubsReport {
  const templates = loadStubTemplates(options.templatesDir);
  const outDir = resolve(options.outDir);
  const created: string[] = [];
  const extended: StubsExtension[] = [];
  const unchanged: string[] = [];
  const notes: string[] = [];
  const generatedModules = new Set([generatedIndexPath(outDir), ...kinds.flatMap((k) => k.versions.map((v) => generatedModulePath(outDir, k.group, v)))]);

  for (const kind of sortKinds(kinds)) {
    const file = handlerFilePath(options.stubsDir, kind);
    const kindModule = generatedModulePath(outDir, kind.group, kind.version);
    if (!existsSync(file)) {
      writeFile(file, renderHandlerFile(kind, relativeSpecifier(file, kindModule), file, templates));
      created.push(file);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    const kindModules = [kindModule, ...kind.versions.map((v) => generatedModulePath(outDir, kind.group, v)), generatedIndexPath(outDir)];
    const result = extendHandlerFile(text, { file, kind: kind.kind, kindModules, kindSpecifier: relativeSpecifier(file, kindModule) }, templates);
    if (result.added.length) {
      writeFile(file, result.text);
      extended.push({ file, added: result.added });
    } else {
      unchanged.push(file);
    }
    for (const imported of result.survey.relativeImports) {
      if (imported.startsWith(outDir + '/') && !generatedModules.has(imported)) {
        notes.push(`${file} imports ${imported}, which kopf-gen no longer generates`);
      }
    }
  }
  const expected = new Set(kinds.map((k) => handlerFilePath(options.stubsDir, k)));
  const orphans = findOrphanedHandlerFiles(resolve(options.stubsDir), expected);
  return { created, extended, unchanged, orphans, notes };
}

/** The whole text of a new handler file for a kind, formatted. */
export function renderHandlerFile(kind: StubKind, kindSpecifier: string, file: string, templates: StubTemplates): string {
  const text = templates.handlerFile({
    kind: kind.kind,
    group: kind.group,
    plural: kind.plural,
    scopeText: kind.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced',
    onImport: { alias: '' },
    kindImport: { kind: kind.kind, alias: '', specifier: kindSpecifier },
    stubs: STUB_EVENTS.map((event) => ({
      partial: stubPartialName(event),
      onRef: 'on',
      kindRef: kind.kind,
      kind: kind.kind,
      fnName: stubFunctionName(event, kind.kind),
    })),
  });
  return formatWholeFile(file, text);
}

function sortKinds(kinds: readonly StubKind[]): StubKind[] {
  const key = (k: StubKind) => `${k.group}/${k.plural}`;
  return [...kinds].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function writeFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
