import { isDeepStrictEqual } from 'node:util';
import { testExample } from '../../test/e2e/rules.ts';
import { KopfExample } from '../kopfexample.ts';

testExample(import.meta.dirname, {
  // What create_fn returned becomes its status (patched right after the diff-base).
  afterCreation: async ({ cluster, ref }) => {
    await cluster.waitFor(
      KopfExample,
      ref,
      (o) => isDeepStrictEqual(o?.status, { create_fn: { message: 'hello world' } }),
    );
  },
});
