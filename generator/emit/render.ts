/**
 * The whole output for a model, in memory: one module per group and served version, and the
 * index. Pure: the same model gives the same bytes.
 */
import type { Model, ResourceModel } from '../model/model.ts';
import { modulePath } from '../model/model.ts';
import { renderIndex } from './index-module.ts';
import { renderModule } from './module.ts';
import type { RenderedModule } from './module.ts';
import { ShapeTable } from './shapes.ts';
import type { ModuleKind } from './typegraph.ts';

export interface RenderProgress {
  (done: number, total: number, module: string): void;
}

/** Path relative to the output folder (always `/`) → file text. */
export function renderFiles(model: Model, onProgress?: RenderProgress): Map<string, string> {
  const groups = new Map<string, Map<string, ModuleKind[]>>();
  for (const resource of model.resources) {
    for (const version of resource.versions) {
      if (!version.served) continue;
      const byVersion = groups.get(resource.group) ?? new Map<string, ModuleKind[]>();
      groups.set(resource.group, byVersion);
      const kinds = byVersion.get(version.name) ?? [];
      byVersion.set(version.name, kinds);
      kinds.push({ resource, version });
    }
  }
  const plan: [string, string, ModuleKind[]][] = [];
  for (const group of [...groups.keys()].sort()) {
    for (const [version, kinds] of [...groups.get(group)!].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      plan.push([group, version, kinds.sort(byKind)]);
    }
  }
  const files = new Map<string, string>();
  const modules: RenderedModule[] = [];
  plan.forEach(([group, version, kinds], i) => {
    onProgress?.(i, plan.length, modulePath(group, version));
    const rendered = renderModule(group, version, kinds, new ShapeTable());
    modules.push(rendered);
    files.set(modulePath(group, version), rendered.text);
  });
  onProgress?.(plan.length, plan.length, '');
  for (const [path, text] of renderIndex(modules).files) files.set(path, text);
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function byKind(a: ModuleKind, b: ModuleKind): number {
  const x: ResourceModel = a.resource;
  const y: ResourceModel = b.resource;
  return x.kind < y.kind ? -1 : x.kind > y.kind ? 1 : 0;
}
