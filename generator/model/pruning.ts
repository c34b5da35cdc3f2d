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

/**
 * With `settings.status.conditions`, the runtime keeps `status.observedGeneration` and
 * `status.conditions`: a status schema that neither declares them nor preserves unknown fields
 * drops them, and tools never see the object as ready.
 */
export function conditionsWarnings(resource: ResourceModel): Diagnostic[] {
  const affected = resource.versions.filter((v) => v.served)
    .map((version) => ({ version, lost: prunedFields(version) }))
    .filter((a) => a.lost.length);
  if (!affected.length) return [];
  const first = affected[0]!;
  const names = affected.map((a) => a.version.name).join(', ');
  const declared = first.version.schema.properties.some((p) => p.name === 'status');
  const lost = first.lost.map((field) => `status.${field}`).join(' and ');
  return [{
    severity: 'warning',
    file: resource.source.file,
    document: resource.source.document,
    path: [...first.version.path, ...(declared ? ['properties', 'status'] : [])],
    message: `${resource.name} (${names}): the API server prunes ${lost}, which settings.status.conditions keeps: `
      + 'declare them in the status schema, or preserve its unknown fields',
  }];
}

/** The fields of the status that tools read which the version's schema would prune. */
function prunedFields(version: VersionModel): string[] {
  const fields = ['observedGeneration', 'conditions'];
  const root = version.schema;
  if (root.preserveUnknown) return [];
  const status = root.properties.find((p) => p.name === 'status')?.node;
  if (!status || status.type !== 'object') return status && keepsEverything(status) ? [] : fields;
  if (status.preserveUnknown) return [];
  return fields.filter((field) => !status.properties.some((p) => p.name === field));
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
