/**
 * CRD files to the model: parse, find the CRDs, read and check each, refuse duplicates, warn
 * where data would be lost. All errors of all files are collected and thrown together.
 */
import { InputError } from '../diagnostics/diagnostic.ts';
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import { extractCrds } from '../input/documents.ts';
import type { SourceFile } from '../input/files.ts';
import { parseYamlStream } from '../input/yaml.ts';
import { DocumentContext } from './document-context.ts';
import { readCrd } from './crd.ts';
import { conditionsWarnings, pruningWarnings } from './pruning.ts';
import type { Model, ResourceModel } from './model.ts';

export interface BuildProgress {
  (done: number, total: number, file: string): void;
}

export interface BuildOptions {
  /** The operator keeps the status that tools read (`settings.status.conditions`): warn where it is pruned. */
  readonly statusConditions?: boolean;
}

export function buildModel(
  sources: readonly SourceFile[], onProgress?: BuildProgress, options: BuildOptions = {},
): Model {
  const diagnostics: Diagnostic[] = [];
  const resources: ResourceModel[] = [];
  const byName = new Map<string, ResourceModel>();
  const pruning = new Map<string, Diagnostic>();
  sources.forEach((source, i) => {
    onProgress?.(i, sources.length, source.display);
    const stream = parseYamlStream(source.text, source.display);
    diagnostics.push(...stream.errors);
    const found = extractCrds(source.display, stream.documents);
    const fileContext = new DocumentContext(source.display, 0, stream.locate);
    diagnostics.push(...found.diagnostics.map((d) => fileContext.located(d)));
    for (const doc of found.crds) {
      const ctx = new DocumentContext(source.display, doc.document, stream.locate);
      const resource = readCrd(doc, ctx);
      diagnostics.push(...ctx.diagnostics);
      if (!resource) continue;
      const earlier = byName.get(resource.name);
      if (earlier) {
        ctx.error(
          [...doc.path, 'metadata', 'name'],
          `${resource.name} is defined twice; first in ${earlier.source.file}, document ${earlier.source.document}`,
        );
        diagnostics.push(...ctx.diagnostics.slice(-1));
        continue;
      }
      byName.set(resource.name, resource);
      if (!resource.versions.some((v) => v.served)) {
        ctx.warn(
          [...doc.path, 'spec', 'versions'],
          `${resource.name} is not served at any version; nothing is generated for it`,
        );
        diagnostics.push(...ctx.diagnostics.slice(-1));
        continue;
      }
      resources.push(resource);
      for (const warning of pruningWarnings(resource).map((d) => ctx.located(d))) {
        diagnostics.push(warning);
        pruning.set(resource.name, warning);
      }
      if (options.statusConditions) diagnostics.push(...conditionsWarnings(resource).map((d) => ctx.located(d)));
    }
  });
  onProgress?.(sources.length, sources.length, '');
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new InputError(errors);
  return { resources: uniqueTypeNames(resources.sort(byGroupAndKind)), diagnostics, pruning };
}

function byGroupAndKind(a: ResourceModel, b: ResourceModel): number {
  return a.group < b.group ? -1 : a.group > b.group ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0;
}

/** Two kinds of one group whose names make the same identifier (`foo`, `Foo`): later ones get a number. */
function uniqueTypeNames(resources: ResourceModel[]): ResourceModel[] {
  const taken = new Set<string>();
  return resources.map((r) => {
    let name = r.typeName;
    for (let n = 2; taken.has(`${r.group}/${name}`); n++) name = `${r.typeName}${n}`;
    taken.add(`${r.group}/${name}`);
    return name === r.typeName ? r : { ...r, typeName: name };
  });
}
