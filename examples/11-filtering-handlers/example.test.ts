import assert from 'node:assert/strict';
import { testExample } from '../../test/e2e/rules.ts';
import { KopfExample } from '../kopfexample.ts';

const MATCHING = [
  'Label is matching.', 'Label is present.', 'Label is absent.', 'Label callback matching.',
  'Annotation is matching.', 'Annotation is present.', 'Annotation is absent.',
  'Filter satisfied.', 'Field value is satisfied.', 'Field presence is satisfied.', 'Field change is satisfied.',
  'Field daemon is satisfied.',
];
const NOT_MATCHING = [
  'Annotation callback mismatch.',
  'Filter not satisfied.',
  'Field value is not satisfied.',
  'Field presence is not satisfied.',
];

testExample(import.meta.dirname, {
  afterCreation: async ({ cluster, ref, waitForAll }) => {
    const waiting = waitForAll(['Field change is satisfied.', 'Updating is processed:']);
    await cluster.mergePatch(KopfExample, ref, { spec: { field: 'changed' } });
    await waiting;
  },
  check: ({ output }) => {
    for (const line of MATCHING) assert.ok(output.includes(`[default/kopf-example-1] ${line}`), `missing: ${line}`);
    for (const line of NOT_MATCHING)
      assert.ok(!output.includes(`[default/kopf-example-1] ${line}`), `unexpected: ${line}`);
  },
});
