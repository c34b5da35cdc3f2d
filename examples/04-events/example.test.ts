import assert from 'node:assert/strict';
import { Events } from '../../runtime/structs/builtins.ts';
import { testExample } from '../../test/e2e/rules.ts';
import { KopfExample } from '../kopfexample.ts';

/** What create_fn posts: type, reason and message of each event, as Kopf posts them. */
const EXPECTED = [
  'SomeType SomeReason Some message',
  'Normal SomeReason Some message',
  'Warning SomeReason Some message',
  'Error SomeReason Some exception: Exception text.',
];

testExample(import.meta.dirname, {
  afterCreation: async ({ cluster, ref }) => {
    const { metadata } = await cluster.read(KopfExample, ref);
    const events = await cluster.waitForList(Events, {
      namespace: ref.namespace ?? 'default',
      fieldSelector: `involvedObject.uid=${metadata?.uid}`,
    },
      (found) => EXPECTED.every((line) => found.some((e) => `${e.type} ${e.reason} ${e.message}` === line)));
    for (const event of events) {
      assert.equal(event.source?.component, 'kopf');
      assert.equal(event.reportingComponent, 'kopf');
      assert.equal(event.involvedObject?.kind, 'KopfExample');
      assert.equal(event.involvedObject?.name, 'kopf-example-1');
    }
  },
});
