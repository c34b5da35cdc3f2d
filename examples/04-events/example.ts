/**
 * Kubernetes events about the handled object, posted from a handler: a custom type, and the
 * shortcuts for the conventional ones (Normal, Warning, Error with the error's text).
 */
import { event, exception, info, on, warn } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.create(KopfExample, function create_fn({ body }) {
  event(body, { type: 'SomeType', reason: 'SomeReason', message: 'Some message' });
  info(body, { reason: 'SomeReason', message: 'Some message' });
  warn(body, { reason: 'SomeReason', message: 'Some message' });
  try {
    throw new Error('Exception text.');
  } catch (error) {
    exception(body, { reason: 'SomeReason', message: 'Some exception:', error });
  }
});
