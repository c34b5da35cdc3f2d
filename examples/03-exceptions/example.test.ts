import { testExample } from '../../test/e2e/rules.ts';

testExample(import.meta.dirname, {
  allowTracebacks: true,
  successCounts: { eventual_success_with_a_few_messages: 1 },
  failureCounts: {
    eventual_failure_with_tracebacks: 1,
    instant_failure_with_traceback: 1,
    instant_failure_with_only_a_message: 1,
  },
});
