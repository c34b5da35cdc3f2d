import { testExample } from '../../test/e2e/rules.ts';

testExample(import.meta.dirname, {
  // Kopf's example test deletes the object before the timers are due; here both run once at least.
  creationStopWords: ['Ping from a sync timer: field="value"', 'Ping from an async timer: field="value"'],
  // Timers count as handlers of neither kind of Kopf's rules: nothing is counted.
  successCounts: {},
});
