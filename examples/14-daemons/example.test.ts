import assert from 'node:assert/strict';
import { testExample } from '../../test/e2e/rules.ts';

testExample(import.meta.dirname, {
  // Both daemons are running: each has pinged after its three failed attempts.
  creationStopWords: ['=> Ping from a sync daemon', '=> Ping from an async daemon'],
  // The deletion waits for both to exit: the sync one on its `stopped`, the async one cancelled.
  deletionStopWords: ["'background_async' is cancelled", "'background_sync' has exited on request"],
  // Daemons count as handlers of neither kind of Kopf's rules: nothing is counted.
  successCounts: {},
  check: ({ output }) => {
    assert.match(
      output,
      /\[default\/kopf-example-1\] Daemon 'background_sync' failed temporarily: Simulated failure\./,
    );
    assert.match(output, /\[default\/kopf-example-1\] Daemon 'background_async' is signalled to exit by force\./);
  },
});
