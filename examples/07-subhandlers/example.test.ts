import assert from 'node:assert/strict';
import { testExample } from '../../test/e2e/rules.ts';

testExample(import.meta.dirname, {
  check: ({ output }) => {
    for (const id of ['create_fn', 'create_fn/item1', 'create_fn/item2'])
      assert.match(output, new RegExp(`Handler '${id}' succeeded`));
    assert.match(output, /=== Handling creation for item1\. ===/);
    assert.match(output, /=== Handling creation for item2\. ===/);
  },
});
