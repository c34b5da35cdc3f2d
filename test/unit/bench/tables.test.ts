import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixed, markdownTable, mean, median, tableHead, tableRow } from '../../../bench/lib/tables.ts';

test('a table is a header, its rule, and a row per result; an empty cell stays a cell', () => {
  assert.equal(tableHead(['run', 'CPU']), '| run | CPU |\n|---|---|');
  assert.equal(tableRow(['ratio', '0.50', '']), '| ratio | 0.50 | |');
  assert.equal(
    markdownTable(['metric', 'ts / Kopf', ''], [['CPU', '0.14', 'lower is better']]),
    '| metric | ts / Kopf | |\n|---|---|---|\n| CPU | 0.14 | lower is better |',
  );
});

test('a figure that was not measured is a dash, not NaN or null', () => {
  assert.equal(fixed(1.234, 1), '1.2');
  assert.equal(fixed(null, 2), '–');
  assert.equal(fixed(undefined, 2), '–');
  assert.equal(fixed(Number.NaN, 2), '–');
});

test('medians and means over runs', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(mean([1, 2, 6]), 3);
});
