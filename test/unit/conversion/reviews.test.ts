/**
 * A webhook request that cannot be reviewed is one error for both engines that answer webhooks,
 * the package's `WebhookError`: a bad ConversionReview is one as a bad AdmissionReview is, with
 * the HTTP status it is answered with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookError } from '../../../runtime/index.ts';
import { parseConversionReview } from '../../../runtime/conversion/reviews.ts';
import { parseReview } from '../../../runtime/admission/reviews.ts';

test('a bad ConversionReview and a bad AdmissionReview are the package\'s WebhookError, answered with a 400', () => {
  for (const parse of [parseConversionReview, parseReview]) {
    assert.throws(() => parse('{"kind": 1}'), (error: unknown) => {
      assert.ok(error instanceof WebhookError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.name, 'WebhookError');
      return true;
    });
  }
});
