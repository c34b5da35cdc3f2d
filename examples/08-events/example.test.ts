import assert from 'node:assert/strict';
import { testExample } from '../../test/e2e/rules.ts';

testExample(import.meta.dirname, {
  allowTracebacks: true,
  // One event for the creation, one for the deletion; no finalizer, so nothing in between.
  successCounts: { normal_event_fn: 2 },
  creationStopWords: [/Handler 'normal_event_fn' succeeded/],
  check: ({ output, created }) => {
    assert.match(output, /Handler 'event_fn_with_error' failed with an exception and will ignore it: Oops!/);
    assert.equal(
      created.metadata?.annotations?.['kopf.zalando.org/last-handled-configuration'],
      undefined,
      'event handlers store nothing',
    );
  },
});
