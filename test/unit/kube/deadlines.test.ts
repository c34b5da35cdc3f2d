import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Deadlines } from '../../../runtime/kube/http/deadlines.ts';

test('limits expire in the order of their time on one timer; cancelled ones never', { timeout: 10_000 }, async () => {
  const limits = new Deadlines();
  const expired: string[] = [];
  let resolve = () => {};
  const last = new Promise<void>((r) => { resolve = r; });
  limits.add(40, () => { expired.push('a'); resolve(); });
  limits.add(10, () => expired.push('b'));
  const c = limits.add(20, () => expired.push('c'));
  limits.add(25, () => expired.push('d'));
  limits.cancel(c);
  assert.equal(limits.size, 3);
  await last;
  assert.deepEqual(expired, ['b', 'd', 'a']);
  assert.equal(limits.size, 0);
});

test('a limit added after the timer was armed for a later one expires at its own time', { timeout: 10_000 }, async () => {
  const limits = new Deadlines();
  const expired: string[] = [];
  let resolve = () => {};
  const early = new Promise<void>((r) => { resolve = r; });
  const late = limits.add(60_000, () => expired.push('late'));
  limits.add(5, () => { expired.push('early'); resolve(); });
  await early;
  assert.deepEqual(expired, ['early']);
  assert.equal(limits.size, 1);
  limits.cancel(late);
  assert.equal(limits.size, 0);
});

test('a pending limit does not keep the process alive', () => {
  const module = new URL('../../../runtime/kube/http/deadlines.ts', import.meta.url).href;
  const script = `import { deadlines } from ${JSON.stringify(module)}; deadlines.add(600_000, () => process.exit(3));`;
  // Returns only when the process exits by itself; a timer holding it would hold it for ten minutes.
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 });
});
