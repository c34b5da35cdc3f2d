/**
 * The order of a cycle's writes. A cycle's patch holds two kinds of content: the handlers' work
 * (their results in `status`, the fields they patched, their transformations) and the records
 * that say the work is done (progress records, then the diff-base). A process can die between
 * any two requests, so every request carrying a record goes after every request carrying the
 * work it speaks of: a crash in between leaves work without its record, and the handler runs
 * again (at least once), never a record without its work (lost for good). Within that order,
 * neighbouring merge patches to the same endpoint go as one, and the order that needs the fewest
 * requests is chosen: with the default storages, the result goes to `status` first and the
 * records follow in the object's patch, two requests as before.
 */
import { composeMergePatches, splitMergePatch, type Fields } from '../structs/patches.ts';

export type Endpoint = 'object' | 'status';

/** One request of the plan: a merge patch, or the transformations (`patch.fns`) as JSON patches. */
export type Write =
  | { kind: 'merge'; endpoint: Endpoint; content: Fields }
  | { kind: 'transform' };

/**
 * The merge patches and transformations of a cycle, in a safe order: `work` first, then the
 * transformations (they read the freshest object), then each of `records` in the order given
 * (the progress records before the diff-base: a diff-base without the purge of the cause's
 * records would let a later cause of the same kind find them finished).
 */
export function planWrites(
  work: Fields, transforms: boolean, records: readonly Fields[], statusSubresource: boolean,
): Write[] {
  const groups = [work, ...records].map((content) => parts(content, statusSubresource));
  // With at most one request per group, there is one order only.
  if (groups.every((group) => group.length < 2)) return ordered(groups, transforms);
  let best: Write[] | undefined;
  for (const order of orders(groups)) {
    const writes = ordered(order, transforms);
    if (!best || writes.length < best.length) best = writes;
  }
  return best ?? [];
}

/** The writes of the groups in this order, the transformations after the first (the work). */
function ordered(groups: readonly Merge[][], transforms: boolean): Write[] {
  const writes: Write[] = [];
  groups.forEach((group, index) => {
    for (const write of group) push(writes, write);
    if (index === 0 && transforms) writes.push({ kind: 'transform' });
  });
  return writes;
}

type Merge = Extract<Write, { kind: 'merge' }>;

/** A group's merge patches, by endpoint; the status first (it is where results go). */
function parts(content: Fields, statusSubresource: boolean): Merge[] {
  const split = splitMergePatch(content, statusSubresource);
  const merges: Merge[] = [];
  if (split.status) merges.push({ kind: 'merge', endpoint: 'status', content: split.status });
  if (split.body) merges.push({ kind: 'merge', endpoint: 'object', content: split.body });
  return merges;
}

/** Every way to order the requests within each group (at most two per group), status first first. */
function* orders(groups: readonly Merge[][]): Generator<Merge[][]> {
  if (!groups.length) { yield []; return; }
  const [first, ...rest] = groups as [Merge[], ...Merge[][]];
  const variants = first.length === 2 ? [first, [first[1]!, first[0]!]] : [first];
  for (const tail of orders(rest)) for (const variant of variants) yield [variant, ...tail];
}

/** Appends a write, into the previous one when both are merge patches of the same endpoint. */
function push(writes: Write[], write: Merge): void {
  const last = writes.at(-1);
  if (last?.kind === 'merge' && last.endpoint === write.endpoint) {
    writes[writes.length - 1] = { ...last, content: composeMergePatches(last.content, write.content) };
  } else {
    writes.push(write);
  }
}
