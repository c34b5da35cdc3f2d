import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchOptions, chosen, optionsHelp, words } from '../../../bench/lib/options.ts';

test('options are read by the types of their defaults: numbers, flags, text, text that may be left out', () => {
  const defaults = { n: 1000, callgrind: false, contestants: 'ts,kopf', events: undefined };
  assert.deepEqual(benchOptions(defaults, []), { n: 1000, callgrind: false, contestants: 'ts,kopf' });
  assert.deepEqual(
    benchOptions(defaults, ['--n', '20', '--callgrind', '--contestants', 'ts', '--events', 'e.json']),
    { n: 20, callgrind: true, contestants: 'ts', events: 'e.json' },
  );
});

test('a number option that is not a number, and an unknown option, are refused before anything runs', () => {
  assert.throws(() => benchOptions({ n: 1000 }, ['--n', 'many']), /--n takes a number, not 'many'/);
  assert.throws(() => benchOptions({ n: 1000 }, ['--n', '']), /--n takes a number/);
  assert.throws(() => benchOptions({ n: 1000 }, ['--objects', '3']), /Unknown option/);
});

test('the help lists every option with its default', () => {
  assert.equal(
    optionsHelp({ n: 300, contestants: 'built,controller-runtime', callgrind: false, events: undefined }),
    'Options, with their defaults:\n  --n 300\n  --contestants built,controller-runtime\n  --callgrind\n'
      + '  --events TEXT (none by default)\n',
  );
});

test('contestants are taken in the order named; an unknown one is refused with the known ones', () => {
  const known = { ts: 'T', kopf: 'K', floor: 'F' };
  assert.deepEqual(chosen('kopf, ts', known), ['K', 'T']);
  assert.throws(() => chosen('ts,python', known), /Unknown contestant 'python': use ts, kopf, floor/);
  assert.throws(() => chosen('toString', known), /Unknown contestant 'toString'/);
});

test('arguments passed on are split into words, with no empty ones', () => {
  assert.deepEqual(words(''), []);
  assert.deepEqual(words(' --quiet  --max-old-space-size=64 '), ['--quiet', '--max-old-space-size=64']);
});
