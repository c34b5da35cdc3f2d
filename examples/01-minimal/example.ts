/**
 * The smallest operator: one creation handler; what it returns becomes the object's status
 * (`status.create_fn.message`).
 */
import { on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.create(KopfExample, function create_fn({ spec }) {
  console.log(`And here we are! Creating: ${JSON.stringify(spec)}`);
  return { message: 'hello world' };
});
