import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ControlPlaneCrashError, ControlPlaneStartError, startControlPlane } from '../../../runtime/testing.ts';
import { isRunning } from '../../unit/testing/controlplane/host.ts';

test('a killed etcd is reported: by the crash promise, by later calls and by stop()', async () => {
  const cp = await startControlPlane();
  const apiServerPid = cp.apiServerPid;
  process.kill(cp.etcdPid, 'SIGKILL');
  const crash = await cp.crash;
  assert.ok(crash instanceof ControlPlaneCrashError);
  assert.equal(crash.process, 'etcd');
  assert.match(crash.message, /etcd \(pid \d+\) exited with signal SIGKILL unexpectedly/);
  assert.ok(crash.logTail.length > 0, 'the end of its log is in the error');
  assert.equal(cp.crashError, crash);
  await assert.rejects(cp.installCrds([]), crash);
  await assert.rejects(cp.stop(), crash);
  assert.ok(!isRunning(apiServerPid), 'the apiserver is stopped all the same');
  assert.ok(!existsSync(cp.dir));
});

test('a killed apiserver is reported likewise', async () => {
  const cp = await startControlPlane();
  process.kill(cp.apiServerPid, 'SIGKILL');
  assert.equal((await cp.crash).process, 'kube-apiserver');
  await assert.rejects(cp.stop(), ControlPlaneCrashError);
});

test('a process that fails to start says why, with its log, and leaves nothing behind', async () => {
  await assert.rejects(startControlPlane({ apiServerArgs: ['--no-such-flag=1'] }), (error: Error) => {
    assert.ok(error instanceof ControlPlaneStartError);
    assert.match(error.message, /kube-apiserver did not start: kube-apiserver \(pid \d+\) exited with code \d+/);
    assert.match(error.message, /unknown flag: --no-such-flag/);
    const dir = /(\/\S+kopf-control-plane-[^/\s]+)\//.exec(error.message)?.[1];
    assert.ok(dir && !existsSync(dir), `state removed: ${dir}`);
    return true;
  });
});
