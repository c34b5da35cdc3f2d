/**
 * What grew between two heap snapshots of one process (`run.ts --heap-snapshots`): the live
 * objects counted and their self sizes summed by constructor, the ones that grew most first.
 *
 *   node bench/soak/heapdiff.ts <earlier.heapsnapshot> <later.heapsnapshot> [--top 30]
 *
 * A retention that follows the churn shows as a count that grows by about the number of updates
 * or re-creations between the snapshots (or a multiple of it). Objects are grouped by their
 * constructor; closures by their function's name; strings, numbers and V8's internal arrays by
 * their kind, as the snapshot names them.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { markdownTable } from '../lib/tables.ts';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  size: number;
}

/** The kinds of node whose names are their contents (a string's text, a number's value): grouped by kind alone. */
const BY_KIND = new Set(['string', 'concatenated string', 'sliced string', 'number', 'heap number', 'bigint']);

/** The snapshot's live nodes, counted and sized by group. */
function groups(file: string): Map<string, Group> {
  const heap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field)) as
    [number, number, number];
  const found = new Map<string, Group>();
  for (let at = 0; at < heap.nodes.length; at += fields.length) {
    const kind = types[heap.nodes[at + type]!]!;
    const label = heap.strings[heap.nodes[at + name]!]!;
    const key = kind === 'object' || kind === 'native' ? label
      : BY_KIND.has(kind) ? `(${kind})` : `(${kind}) ${label.slice(0, 60)}`;
    const group = found.get(key) ?? { count: 0, size: 0 };
    group.count++;
    group.size += heap.nodes[at + size]!;
    found.set(key, group);
  }
  return found;
}

function main(): void {
  const { positionals, values } = parseArgs({
    allowPositionals: true, options: { top: { type: 'string', default: '30' } },
  });
  if (positionals.length !== 2) {
    throw new Error('usage: heapdiff.ts <earlier.heapsnapshot> <later.heapsnapshot> [--top N]');
  }
  const [before, after] = positionals.map(groups) as [Map<string, Group>, Map<string, Group>];
  const none: Group = { count: 0, size: 0 };
  const grown = [...new Set([...before.keys(), ...after.keys()])].map((key) => {
    const was = before.get(key) ?? none;
    const is = after.get(key) ?? none;
    return { key, was, is, count: is.count - was.count, size: is.size - was.size };
  });
  const top = Number(values.top);
  const table = (order: (a: typeof grown[number], b: typeof grown[number]) => number) => markdownTable(
    ['constructor', 'count before', 'count after', 'count Δ', 'self KiB before', 'self KiB after', 'self KiB Δ'],
    grown.sort(order).slice(0, top).map((g) => [
      g.key.replaceAll('|', '\\|'), String(g.was.count), String(g.is.count), String(g.count),
      (g.was.size / 1024).toFixed(1), (g.is.size / 1024).toFixed(1), (g.size / 1024).toFixed(1),
    ]),
  );
  const total = (all: Map<string, Group>) => [...all.values()].reduce((sum, g) => sum + g.size, 0) / 1024 ** 2;
  console.log(`live heap: ${total(before).toFixed(1)} MiB before, ${total(after).toFixed(1)} MiB after\n`);
  console.log(`grown most by count:\n\n${table((a, b) => b.count - a.count)}\n`);
  console.log(`grown most by self size:\n\n${table((a, b) => b.size - a.size)}`);
}

main();
