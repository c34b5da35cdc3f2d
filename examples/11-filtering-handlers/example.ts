/**
 * Handlers that run only for matching objects: by labels and annotations (a value, present,
 * absent, or a callback), by an arbitrary `when` predicate, by a field's value or presence, and
 * updates by a field's old and new values, and a daemon by a field's value (it is stopped when
 * the value changes). Only the handlers whose filters match log anything.
 */
import { ABSENT, on, PRESENT, type FilterContext } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

function say_yes(value: string | undefined, { spec }: FilterContext<KopfExample>): boolean {
  return value === 'somevalue' && spec.field !== undefined;
}

function say_no(value: string | undefined, { spec }: FilterContext<KopfExample>): boolean {
  return value === 'somevalue' && spec.field === 'not-this-value-for-sure';
}

on.create(KopfExample, function create_with_labels_matching({ logger }) {
  logger.info('Label is matching.');
}, { labels: { somelabel: 'somevalue' } });

on.create(KopfExample, function create_with_labels_present({ logger }) {
  logger.info('Label is present.');
}, { labels: { somelabel: PRESENT } });

on.create(KopfExample, function create_with_labels_absent({ logger }) {
  logger.info('Label is absent.');
}, { labels: { nonexistent: ABSENT } });

on.create(KopfExample, function create_with_labels_callback_matching({ logger }) {
  logger.info('Label callback matching.');
}, { labels: { somelabel: say_yes } });

on.create(KopfExample, function create_with_annotations_matching({ logger }) {
  logger.info('Annotation is matching.');
}, { annotations: { someannotation: 'somevalue' } });

on.create(KopfExample, function create_with_annotations_present({ logger }) {
  logger.info('Annotation is present.');
}, { annotations: { someannotation: PRESENT } });

on.create(KopfExample, function create_with_annotations_absent({ logger }) {
  logger.info('Annotation is absent.');
}, { annotations: { nonexistent: ABSENT } });

on.create(KopfExample, function create_with_annotations_callback_matching({ logger }) {
  logger.info('Annotation callback mismatch.');
}, { annotations: { someannotation: say_no } });

on.create(KopfExample, function create_with_filter_satisfied({ logger }) {
  logger.info('Filter satisfied.');
}, { when: () => true });

on.create(KopfExample, function create_with_filter_not_satisfied({ logger }) {
  logger.info('Filter not satisfied.');
}, { when: () => false });

on.create(KopfExample, function create_with_field_value_satisfied({ logger }) {
  logger.info('Field value is satisfied.');
}, { field: 'spec.field', value: 'value' });

on.create(KopfExample, function create_with_field_value_not_satisfied({ logger }) {
  logger.info('Field value is not satisfied.');
}, { field: 'spec.field', value: 'something-else' });

on.create(KopfExample, function create_with_field_presence_satisfied({ logger }) {
  logger.info('Field presence is satisfied.');
}, { field: 'spec.field', value: PRESENT });

on.create(KopfExample, function create_with_field_presence_not_satisfied({ logger }) {
  logger.info('Field presence is not satisfied.');
}, { field: 'spec.inexistent', value: PRESENT });

on.update(KopfExample, function update_with_field_change_satisfied({ logger }) {
  logger.info('Field change is satisfied.');
}, { field: 'spec.field', old: 'value', new: 'changed' });

on.daemon(KopfExample, async function daemon_with_field({ stopped, logger }) {
  while (!stopped.stopped) {
    logger.info('Field daemon is satisfied.');
    await stopped.wait(1);
  }
}, { field: 'spec.field', value: 'value' });
