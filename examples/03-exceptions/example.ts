/**
 * How handler errors are retried or not: a permanent error stops at once; a temporary one is
 * retried after its delay; an arbitrary error is retried (with a backoff, up to `retries`
 * attempts) or fails at once, as the handler's `errors` option says.
 */
import { on, PermanentError, TemporaryError } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

class MyException extends Error {
  override name = 'MyException';
}

on.create(KopfExample, function instant_failure_with_only_a_message() {
  throw new PermanentError('Fail once and for all.');
});

on.create(KopfExample, function eventual_success_with_a_few_messages({ retry }) {
  if (retry < 3) { // attempts 0, 1, 2 fail; the 4th one succeeds
    throw new TemporaryError('Expected recoverable error.', { delay: 1 });
  }
});

on.create(KopfExample, function eventual_failure_with_tracebacks() {
  throw new MyException('An error that is supposed to be recoverable.');
}, { retries: 3, backoff: 1 });

on.create(KopfExample, function instant_failure_with_traceback() {
  throw new MyException('An error that is supposed to be recoverable.');
}, { errors: 'permanent', backoff: 1 });
