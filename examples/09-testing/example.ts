/**
 * The operator under test in example.test.ts: it only logs, so the test can see it worked.
 */
import { on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.create(KopfExample, function create_fn({ logger }) {
  logger.info('Something was logged here.');
});
