/**
 * Storage migration (`kopf migrate-storage <crd>`): every object of a CRD rewritten in its storage
 * version, then the CRD's `status.storedVersions` trimmed to that version, so that older versions
 * can be retired. Objects are read in the storage version (the API server converts them, through
 * the webhook if the strategy says so) and written back as read: the API server stores an object
 * again only if its stored bytes differ, which they do exactly when it was stored in another
 * version. So a second run rewrites nothing, and nothing is written unless all objects could be
 * read: a version that cannot be converted stops the migration before its first write.
 */
import {
  ApiError, getObject, isConflict, isNotFound, listObjects, patchObject, replaceObject, type KubeClient,
} from '../kube/index.ts';
import { CustomResourceDefinitions, type CustomResourceDefinition } from '../structs/builtins.ts';
import type { KubeObject, ResourceDescriptor } from '../structs/resources.ts';
import { crdName, type ConversionHandler } from '../registry/conversions.ts';

export interface MigrationOptions {
  client: KubeClient;
  /** The CRD's name: `<plural>.<group>`. */
  crd: string;
  /**
   * The operator's converters, if known: with a conversion strategy other than None, a stored
   * version that none of them converts refuses the migration before anything is read.
   */
  converters?: readonly ConversionHandler[];
  /** Called after each object with the count done and the total. */
  progress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface MigrationSummary {
  crd: string;
  storage: string;
  /** Objects read in the storage version. */
  objects: number;
  /** Objects the API server stored again (they were stored in another version). */
  rewritten: number;
  /** Objects deleted or changed by others meanwhile: written in the storage version by those changes. */
  skipped: number;
  storedVersions: { before: readonly string[]; after: readonly string[] };
}

/** The migration cannot be done; nothing was written when this is thrown before the first object. */
export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

export async function migrateStorage(options: MigrationOptions): Promise<MigrationSummary> {
  const { client, crd: name, signal } = options;
  const crd = await readCrd(client, name);
  const storage = crd.spec.versions.find((v) => v.storage)?.name;
  if (!storage) throw new MigrationError(`The CRD ${name} has no storage version.`);
  const before = [...(crd.status?.storedVersions ?? [])];
  checkConverters(crd, storage, before, options.converters);
  const resource = storageDescriptor(crd, storage);
  let items: KubeObject[];
  try {
    ({ items } = await listObjects(client, resource, { signal }));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new MigrationError(`The objects of ${name} cannot be read in ${storage}, so nothing is rewritten: ` +
      `${error.message}`);
  }
  let rewritten = 0;
  let skipped = 0;
  for (const [index, item] of items.entries()) {
    const outcome = await rewrite(client, resource, item, signal);
    if (outcome === 'rewritten') rewritten++;
    if (outcome === 'skipped') skipped++;
    options.progress?.(index + 1, items.length);
  }
  const after = [storage];
  if (before.length !== 1 || before[0] !== storage) {
    await patchObject(client, CustomResourceDefinitions, { name }, { status: { storedVersions: after } },
      { subresource: 'status', signal });
  }
  return { crd: name, storage, objects: items.length, rewritten, skipped, storedVersions: { before, after } };
}

/** One summary line, as the command prints it. */
export function summaryLine(summary: MigrationSummary): string {
  const { crd, storage, objects, rewritten, skipped, storedVersions } = summary;
  const versions = `storedVersions [${storedVersions.before.join(', ')}] → [${storedVersions.after.join(', ')}]`;
  const others = skipped ? `, ${skipped} changed or deleted meanwhile` : '';
  return `Migrated ${crd} to ${storage}: ${objects} objects, ${rewritten} rewritten${others}; ${versions}.`;
}

async function readCrd(client: KubeClient, name: string): Promise<CustomResourceDefinition & { spec: CrdSpec }> {
  try {
    return await getObject(client, CustomResourceDefinitions, { name }) as CustomResourceDefinition & { spec: CrdSpec };
  } catch (error) {
    if (isNotFound(error)) throw new MigrationError(`There is no CRD named ${name}.`);
    throw error;
  }
}

type CrdSpec = CustomResourceDefinition['spec'];

/**
 * With a conversion strategy, every stored version and the storage version must be converted by
 * the operator: the hub's version or a spoke's. Under None, the API server only relabels them.
 */
function checkConverters(
  crd: CustomResourceDefinition & { spec: CrdSpec }, storage: string, stored: readonly string[],
  converters: readonly ConversionHandler[] | undefined,
): void {
  const strategy = crd.spec.conversion?.strategy ?? 'None';
  if (strategy === 'None' || converters === undefined) return;
  const name = crd.metadata!.name!;
  const own = converters.filter((h) => crdName(h.hub) === name);
  const known = new Set(own.flatMap((h) => [h.hub.version, h.spoke.version]));
  const missing = [...new Set([...stored, storage])].filter((version) => !known.has(version));
  if (missing.length) {
    const which = missing.join(', ');
    throw new MigrationError(`The CRD ${name} converts by ${strategy}, but no converter (on.convert) converts ` +
      `its stored version(s) ${which}: add one, or the objects stored in ${which} cannot be migrated.`);
  }
}

function storageDescriptor(crd: CustomResourceDefinition & { spec: CrdSpec }, storage: string): ResourceDescriptor {
  const { group, names, scope } = crd.spec;
  return { group, version: storage, plural: names.plural, kind: names.kind, scope: scope as 'Namespaced' | 'Cluster' };
}

/** Writes the object back as read; whether the API server stored it again, or it had changed meanwhile. */
async function rewrite(
  client: KubeClient, resource: ResourceDescriptor, item: KubeObject, signal?: AbortSignal,
): Promise<'rewritten' | 'unchanged' | 'skipped'> {
  try {
    const written = await replaceObject(client, resource, item, { signal });
    return written.metadata?.resourceVersion === item.metadata?.resourceVersion ? 'unchanged' : 'rewritten';
  } catch (error) {
    // A change since the listing wrote it in the storage version already; a deletion leaves nothing to do.
    if (isConflict(error) || isNotFound(error)) return 'skipped';
    throw error;
  }
}
