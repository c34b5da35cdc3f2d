/**
 * The burst benchmark's operator on this runtime: a creation handler with a small result, a
 * no-op deletion handler (so the finalizer is needed), no Kubernetes events.
 * operator_kopf.py is the same operator for Python Kopf.
 */
import { on } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

on.startup(function configure({ settings }) {
  settings.posting.enabled = false;
});

on.create(KopfExample, function create_fn() {
  return { message: 'hello world' };
});

on.delete(KopfExample, function delete_fn() {});
