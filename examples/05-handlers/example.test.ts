import assert from 'node:assert/strict';
import { testExample } from '../../test/e2e/rules.ts';

testExample(import.meta.dirname, {
  check: ({ output }) => {
    // On creation: both creation handlers and the field handler (the field appears), no resume.
    for (const id of ['create_fn_1', 'create_fn_2', 'field_fn/spec.field', 'delete_fn_1', 'delete_fn_2']) {
      assert.match(output, new RegExp(`Handler '${id}' succeeded`));
    }
    assert.doesNotMatch(output, /Handler 'resume_fn_\d'/);
    assert.match(output, /FIELD CHANGED: (undefined|None) -> value/);
  },
});
