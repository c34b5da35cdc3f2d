/**
 * Handler stubs: one user-owned file per kind, `<stubsDir>/<group>/<plural>.ts`, written from the
 * templates when absent and, when present, extended only by what it lacks.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { STUB_EVENTS, stubFunctionName, stubPartialName } from './events.ts';
import { extendHandlerFile } from './extend.ts';
import { formatWholeFile } from './format.ts';
import type { StubResource, StubsExtension, StubsInput, StubsOptions, StubsReport } from './input.ts';
import { generatedIndexPath, generatedModulePath, handlerFilePath, relativeSpecifier } from './layout.ts';
import { findOrphanedHandlerFiles } from './orphans.ts';
import { loadStubTemplates } from './template.ts';
import type { StubTemplates } from './template.ts';

export type { StubResource, StubsExtension, StubsInput, StubsOptions, StubsReport } from './input.ts';
export { STUB_EVENTS, stubFunctionName } from './events.ts';
export type { StubEvent } from './events.ts';

export function generateStubs(model: StubsInput, options: StubsOptions): StubsReport {
  const templates = loadStubTemplates(options.templatesDir);
  const outDir = resolve(options.outDir);
  const modulesOf = (r: StubResource) => r.versions.filter((v) => v.served).map(
    (v) => generatedModulePath(outDir, r.group, v.name)
  );
  const generated = new Set([generatedIndexPath(outDir), ...model.resources.flatMap(modulesOf)]);
  const created: string[] = [];
  const extended: StubsExtension[] = [];
  const unchanged: string[] = [];
  const notes: string[] = [];

  for (const resource of sortResources(model.resources)) {
    const file = handlerFilePath(options.stubsDir, resource);
    const preferred = generatedModulePath(outDir, resource.group, resource.preferredVersion);
    if (!existsSync(file)) {
      writeFile(file, renderHandlerFile(resource, relativeSpecifier(file, preferred), file, templates));
      created.push(file);
      continue;
    }
    const target = {
      file,
      kind: resource.kind,
      typeName: resource.typeName,
      kindModules: [preferred, ...modulesOf(resource), generatedIndexPath(outDir)],
      kindSpecifier: relativeSpecifier(file, preferred),
    };
    const result = extendHandlerFile(readFileSync(file, 'utf8'), target, templates);
    if (result.added.length) {
      writeFile(file, result.text);
      extended.push({ file, added: result.added });
    } else {
      unchanged.push(file);
    }
    if (result.leftAlone) notes.push(`${file} was left as it is: ${result.leftAlone}`);
    for (const imported of result.survey.relativeImports) {
      if (imported.startsWith(outDir + '/') && !generated.has(imported)) {
        notes.push(`${file} imports ${imported}, which kopf-gen no longer generates`);
      }
    }
  }
  const expected = new Set(model.resources.map((r) => handlerFilePath(options.stubsDir, r)));
  const orphans = findOrphanedHandlerFiles(resolve(options.stubsDir), expected);
  return { created, extended, unchanged, orphans, notes };
}

/** The whole text of a new handler file for a kind, formatted. */
export function renderHandlerFile(
  resource: StubResource,
  kindSpecifier: string,
  file: string,
  templates: StubTemplates,
): string {
  const name = resource.typeName;
  const text = templates.handlerFile({
    kind: resource.kind,
    group: resource.group,
    plural: resource.plural,
    scopeText: resource.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced',
    onImport: { alias: '' },
    kindImport: { kind: name, alias: '', specifier: kindSpecifier },
    stubs: STUB_EVENTS.map((event) => ({
      partial: stubPartialName(event),
      onRef: 'on',
      kindRef: name,
      kind: resource.kind,
      fnName: stubFunctionName(event, name),
    })),
  });
  return formatWholeFile(file, text);
}

function sortResources(resources: readonly StubResource[]): StubResource[] {
  const key = (r: StubResource) => `${r.group}/${r.plural}`;
  return [...resources].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function writeFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
