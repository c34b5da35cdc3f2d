/**
 * Where the runtime would lose data to the API server's pruning: Kopf-style operators write a
 * handler's result to `status.<handler id>` and may keep progress in `status.kopf`; a status
 * schema that does not preserve unknown fields silently drops both.
 */
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import type { ObjectNode, ResourceModel, SchemaNode, VersionModel } from './model.ts';

export function pruningWarnings(resource: ResourceModel): Diagnostic[] {
  const affected: { version: VersionModel; progressKept: boolean; declared: boolean }[] = [];
  for (const version of resource.versions) {
    if (!version.served) continue;
    const verdict = statusVerdict(version.schema);
    if (verdict) affected.push({ version, ...verdict });
  }
  if (!affected.length) return [];
  const first = affected[0]!;
  const names = affected.map((a) => a.version.name).join(', ');
  const lost = first.progressKept ? 'handler results (status.<handler id>)'
    : 'handler results (status.<handler id>) and progress stored in status (status.kopf)';
  const why = first.declared ? 'its status schema has no x-kubernetes-preserve-unknown-fields'
    : 'its schema has no status';
  return [{
    severity: 'warning',
    file: resource.source.file,
    document: resource.source.document,
    path: [...first.version.path, ...(first.declared ? ['properties', 'status'] : [])],
    message: `${resource.name} (${names}): the API server prunes ${lost}: ${why}`,
  }];
}

function statusVerdict(root: ObjectNode): { progressKept: boolean; declared: boolean } | undefined {
  if (root.preserveUnknown) return undefined;
  const status = root.properties.find((p) => p.name === 'status')?.node;
  if (!status) return { progressKept: false, declared: false };
  if (keepsEverything(status)) return undefined;
  if (status.type !== 'object') return { progressKept: false, declared: true };
  const kopf = status.properties.find((p) => p.name === 'kopf')?.node;
  return { progressKept: kopf !== undefined && keepsEverything(kopf), declared: true };
}

function keepsEverything(node: SchemaNode): boolean {
  return node.type === 'json' || (node.type === 'object' && node.preserveUnknown);
}
