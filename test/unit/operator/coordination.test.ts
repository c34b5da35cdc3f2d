/**
 * The operator's coordination (runtime/operator/coordination.ts): what a pause does to the queues
 * and the timers and daemons, a standalone operator that asks the API server nothing, and the
 * leader election's Lease in the credentials' namespace, pausing the operator until it is held.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Coordination, followPauses } from '../../../runtime/operator/coordination.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';
import { LogConfig, Logger } from '../../../runtime/logging/index.ts';
import { ToggleSet } from '../../../runtime/structs/toggles.ts';
import { Pausing } from '../../../runtime/daemons/pausing.ts';
import type { PipelineEnv, ResourcePipeline } from '../../../runtime/pipeline/pipeline.ts';
import { clientOf, deferred, sendJson, startServer, status, type Received } from '../kube/fake-server.ts';

const logger = new Logger(new LogConfig(), 'kopf');

/** A pipeline that only records what is done to its queue. */
function recordingPipeline(said: string[]): ResourcePipeline {
  const queue = { pause: () => said.push('queue paused'), resume: () => said.push('queue resumed') };
  return { queue } as unknown as ResourcePipeline;
}

test('a pause holds every queue and pauses the timers and daemons; its end resumes both', async () => {
  const pauses = new ToggleSet();
  const pausing = new Pausing();
  const said: string[] = [];
  pausing.join({ pause: async () => { said.push('spawner paused'); }, resume: () => said.push('spawner resumed') });
  const pipelines = [recordingPipeline(said), recordingPipeline(said)];
  const unfollow = followPauses(pauses, pausing, pipelines);
  const toggle = pauses.make('a peer outranks it');
  toggle.turn(true);
  assert.equal(pausing.paused, true);
  toggle.turn(false);
  assert.deepEqual(said, [
    'queue paused', 'queue paused', 'spawner paused', 'queue resumed', 'queue resumed', 'spawner resumed',
  ]);
  unfollow();
  toggle.turn(true);
  assert.equal(said.length, 6, 'unfollowed, a pause does nothing more');
});

test('an operator paused before the pauses are followed has its timers and daemons paused at once', () => {
  const pauses = new ToggleSet();
  pauses.make('no peering CRD', true);
  const pausing = new Pausing();
  followPauses(pauses, pausing, []);
  assert.equal(pausing.paused, true);
});

test('a standalone operator without an election or a ring coordinates with no one', async (t) => {
  const server = await startServer((_req, res) => sendJson(res, 503, status(503, 'ServiceUnavailable', 'no')));
  t.after(() => server.close());
  const settings = defaultSettings();
  settings.peering.standalone = true;
  const pauses = new ToggleSet();
  const coordination = new Coordination();
  await coordination.start({
    client: clientOf(server), settings, identity: 'me', pauses, logger, credentialsNamespace: 'creds',
    stop: new AbortController().signal, lost: () => undefined, metrics: undefined,
  });
  assert.equal(pauses.on, false);
  assert.equal(coordination.assigner, undefined);
  const env = { settings } as PipelineEnv;
  assert.equal(coordination.withMembership(env), env, 'not a ring\'s replica: the pipelines watch every object');
  await coordination.stop();
  assert.deepEqual(server.received, []);
});

test('the leader election pauses the operator until it holds the Lease, in the credentials\' namespace', async (t) => {
  const asked = deferred<Received>();
  const server = await startServer((req, res) => {
    asked.resolve(req);
    sendJson(res, 503, status(503, 'ServiceUnavailable', 'no'));
  });
  const podNamespace = process.env.POD_NAMESPACE;
  delete process.env.POD_NAMESPACE;
  t.after(() => { if (podNamespace !== undefined) process.env.POD_NAMESPACE = podNamespace; });
  const settings = defaultSettings();
  settings.peering.standalone = true;
  settings.leaderElection.name = 'lead';
  const pauses = new ToggleSet();
  const coordination = new Coordination();
  // The election stops before the server does: its retries never meet a closed port.
  t.after(async () => { await coordination.stop(); await server.close(); });
  await coordination.start({
    client: clientOf(server), settings, identity: 'me', pauses, logger, credentialsNamespace: 'creds',
    stop: new AbortController().signal, lost: () => undefined, metrics: undefined,
  });
  assert.deepEqual(pauses.blockers(), ["not the leader of lease 'creds/lead'"]);
  const request = await asked.promise;
  assert.match(request.path, /\/namespaces\/creds\/leases/);
});
