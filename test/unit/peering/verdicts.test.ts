import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, obey } from '../../../runtime/peering/observer.ts';
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/index.ts';
import { levelName } from '../../../runtime/logging/levels.ts';

const NOW = Date.parse('2026-11-25T14:20:00Z');
const seen = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();
const OWN = { identity: 'me', priority: 0 };

function logged(fn: (logger: Logger) => void): string[] {
  const capture = captureLogs();
  fn(new Logger(new LogConfig({ sinks: [capture.sink], verbosity: 'verbose' }), 'kopf.peering'));
  return capture.records.map((r) => `${levelName(r.level)}: ${r.message}`);
}

test('a live peer of a higher priority pauses us, with Kopf\'s message, said once', () => {
  const status = {
    me: { priority: 0, lifetime: 60, lastseen: seen(1) },
    dev: { priority: 666, lifetime: 60, lastseen: seen(5) },
  };
  const verdict = judge(status, OWN, NOW);
  assert.equal(verdict.kind, 'outranked');
  const toggle = new ToggleSet().make('default@default');
  let wait: number | undefined;
  const lines = logged((logger) => { wait = obey(verdict, toggle, logger, NOW); obey(verdict, toggle, logger, NOW); });
  assert.equal(toggle.on, true);
  assert.equal(wait, 55_000, 'judged again when the blocker expires');
  assert.equal(lines.length, 1);
  assert.match(
    lines[0]!,
    /^INFO: Pausing operations in favour of \[<Peer dev: priority=666, lifetime=60, lastseen='.*'>\]\.$/,
  );
});

test('peers of the same priority pause everyone, with a warning each time', () => {
  const status = {
    me: { priority: 0, lifetime: 60, lastseen: seen(1) },
    twin: { priority: 0, lifetime: 60, lastseen: seen(1) },
  };
  const verdict = judge(status, OWN, NOW);
  assert.equal(verdict.kind, 'conflict');
  const toggle = new ToggleSet().make('x');
  const lines = logged((logger) => { obey(verdict, toggle, logger, NOW); obey(verdict, toggle, logger, NOW); });
  assert.equal(toggle.on, true);
  assert.equal(
    lines.filter(
      (l) => l.startsWith('WARNING: Possibly conflicting operators with the same priority: [<Peer twin')
    ).length,
    2,
  );
  assert.equal(
    lines.filter((l) => l.startsWith('WARNING: Pausing all operators, including self: [<Peer me')).length,
    1,
  );
});

test('lower priorities and dead peers do not pause us; dead ones are to be removed; the pause ends', () => {
  const status = {
    me: { priority: 5, lifetime: 60, lastseen: seen(1) },
    low: { priority: 1, lifetime: 60, lastseen: seen(1) },
    gone: { priority: 9, lifetime: 60, lastseen: seen(61) },
  };
  const verdict = judge(status, { identity: 'me', priority: 5 }, NOW);
  assert.equal(verdict.kind, 'free');
  assert.deepEqual(verdict.dead.map((p) => p.identity), ['gone']);
  const toggle = new ToggleSet().make('x', true);
  const lines = logged((logger) => assert.equal(obey(verdict, toggle, logger, NOW), undefined));
  assert.equal(toggle.on, false);
  assert.deepEqual(
    lines,
    ['INFO: Resuming operations after the pause. Conflicting operators with the same priority are gone.'],
  );
});

test('a first look that finds a higher peer announces the pause although the toggle started on', () => {
  const status = { dev: { priority: 666, lifetime: 60, lastseen: seen(1) } };
  const toggle = new ToggleSet().make('x', true);
  const lines = logged((logger) => obey(judge(status, OWN, NOW), toggle, logger, NOW, false));
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /Pausing operations in favour of/);
});

test('a toggle set is on while any toggle is, tells its listeners of changes only, and can be awaited', async () => {
  const set = new ToggleSet();
  const changes: boolean[] = [];
  set.subscribe((on) => changes.push(on));
  const a = set.make('a');
  const b = set.make('b', true);
  a.turn(true);
  assert.deepEqual(set.blockers(), ['a', 'b']);
  const off = set.wait(false);
  b.turn(false);
  a.turn(false);
  assert.equal(await off, true);
  set.make('c', true);
  const gate = set.untilOn(new AbortController().signal);
  assert.equal(gate.signal.aborted, true);
  gate.dispose();
  assert.deepEqual(changes, [true, false, true]);
  const aborted = new AbortController();
  const never = set.wait(false, aborted.signal);
  aborted.abort();
  assert.equal(await never, false);
});
