/**
 * What the benchmarks do to many objects: the example object they create, and a bounded number of
 * requests at a time (as that many concurrent clients would send them).
 */
import type { KopfExample } from '../../examples/kopfexample.ts';

/** Runs `fn` over the items with at most `limit` at a time. */
export async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** examples/obj.yaml's object under another name. */
export function exampleObject(name: string): KopfExample {
  return {
    apiVersion: 'kopf.dev/v1',
    kind: 'KopfExample',
    metadata: { name },
    spec: { duration: '1m', field: 'value', items: ['item1', 'item2'] },
  };
}
