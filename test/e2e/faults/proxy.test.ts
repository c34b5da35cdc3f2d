/**
 * The fault proxy on a real control plane: requests pass through it untouched unless a fault
 * applies; each fault does what it says to exactly the requests it counts; discovery hides what
 * it is told to hide and shows it again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { sendRequest } from '../../../runtime/testing/controlplane/requests.ts';
import type { ApiCredentials } from '../../../runtime/testing.ts';
import { KopfExample } from '../../../examples/kopfexample.ts';
import { Cluster } from '../cluster.ts';
import { useCluster } from '../use-cluster.ts';
import { CUT, SILENCE, STALL, answer, type FaultProxy } from './proxy.ts';
import { useFaultProxy } from './use-proxy.ts';

const cluster = useCluster();
const faultProxy = useFaultProxy(cluster);
let proxy: FaultProxy;

test('the proxy starts in front of the control plane', async () => {
  proxy = await faultProxy();
  assert.match(proxy.server, /^https:\/\/127\.0\.0\.1:\d+$/);
});

const EXAMPLES = '/apis/kopf.dev/v1/namespaces/default/kopfexamples';

function createExample(credentials: ApiCredentials, name: string) {
  const body = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name } };
  return sendRequest(credentials, 'POST', EXAMPLES, { body });
}

/** A raw watch through the proxy: its response, and all the text it has delivered so far. */
async function openWatch(credentials: ApiCredentials): Promise<{ response: IncomingMessage; text: () => string }> {
  const req = httpsRequest(new URL(`${EXAMPLES}?watch=true`, credentials.server), {
    ca: credentials.ca, cert: credentials.cert, key: credentials.key, agent: false,
  });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => { text += chunk; });
  response.on('error', () => {});
  return { response, text: () => text };
}

test('requests pass through; passed() resolves once the answer went back', async () => {
  const seen = proxy.passed({ method: 'POST', path: EXAMPLES });
  const created = await createExample(proxy.credentials, 'through');
  assert.equal(created.status, 201);
  const passage = await seen;
  assert.equal(passage.status, 201);
  const client = new Cluster(proxy.kubeconfigPath);
  try {
    const read = await client.read(KopfExample, { name: 'through' });
    assert.equal(read.metadata?.name, 'through', 'the runtime\'s client reads through the proxy\'s kubeconfig');
  } finally {
    client.close();
  }
});

test('answer(429) with Retry-After applies to the counted request only', async () => {
  const match = { method: 'GET', path: `${EXAMPLES}/through` };
  const injection = proxy.inject(match, answer(429, { retryAfter: 3 }), { nth: 2 });
  const first = await sendRequest(proxy.credentials, 'GET', `${EXAMPLES}/through`);
  const second = await sendRequest(proxy.credentials, 'GET', `${EXAMPLES}/through`);
  const third = await sendRequest(proxy.credentials, 'GET', `${EXAMPLES}/through`);
  assert.deepEqual([first.status, second.status, third.status], [200, 429, 200]);
  assert.equal(second.headers['retry-after'], '3');
  assert.equal(JSON.parse(second.text).reason, 'TooManyRequests');
  assert.equal(injection.hits.count, 1);
  injection.remove();
});

test('a stalled request is neither answered nor forwarded until released', async () => {
  const injection = proxy.inject({ method: 'POST', path: EXAMPLES }, STALL);
  const creating = createExample(proxy.credentials, 'stalled');
  const held = await injection.hits.first;
  assert.equal(held.method, 'POST');
  const direct = await sendRequest(cluster.cp.credentials, 'GET', `${EXAMPLES}/stalled`);
  assert.equal(direct.status, 404, 'the stalled creation has not reached the apiserver');
  injection.release();
  assert.equal((await creating).status, 201);
  const outcomes = proxy.log.filter((p) => p.request === held).map((p) => p.outcome);
  assert.deepEqual(outcomes, ['stalled', 'released', 'passed']);
});

test('a stalled request can be cut instead; CUT closes a connection without an answer', async () => {
  const stall = proxy.inject({ method: 'POST', path: EXAMPLES }, STALL, { nth: 1 });
  const creating = createExample(proxy.credentials, 'cut');
  await stall.hits.first;
  stall.cut();
  await assert.rejects(creating, /socket hang up|ECONNRESET/);
  const cut = proxy.inject({ method: 'GET' }, CUT, { nth: 1 });
  await assert.rejects(sendRequest(proxy.credentials, 'GET', `${EXAMPLES}/through`), /socket hang up|ECONNRESET/);
  assert.equal(cut.hits.count, 1);
  assert.equal((await sendRequest(proxy.credentials, 'GET', `${EXAMPLES}/through`)).status, 200);
  assert.equal((await sendRequest(cluster.cp.credentials, 'GET', `${EXAMPLES}/cut`)).status, 404);
});

test('5xx bursts: times counts the requests answered with the status', async () => {
  const burst = proxy.inject({ method: 'GET', path: `${EXAMPLES}/through` }, answer(503), { skip: 1, times: 3 });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    statuses.push((await sendRequest(proxy.credentials, 'GET', `${EXAMPLES}/through`)).status);
  }
  assert.deepEqual(statuses, [200, 503, 503, 503, 200, 200]);
  burst.remove();
});

test('SILENCE on an open watch drops what follows; cutStreams() closes it', async () => {
  const watch = await openWatch(proxy.credentials);
  while (!watch.text().includes('"through"')) await once(watch.response, 'data');
  const silence = proxy.inject({ path: EXAMPLES, watch: true }, SILENCE, { open: true });
  assert.equal(silence.hits.count, 1);
  const direct = await openWatch(cluster.cp.credentials);
  await createExample(cluster.cp.credentials, 'unheard');
  while (!direct.text().includes('"unheard"')) await once(direct.response, 'data');
  direct.response.destroy();
  const closed = new Promise((resolve) => watch.response.once('close', resolve));
  assert.equal(proxy.cutStreams({ path: EXAMPLES, watch: true }), 1);
  await closed;
  assert.ok(!watch.text().includes('"unheard"'), 'nothing after the silence arrived');
  silence.remove();
});

test('relayed() resolves once a response passed a text on, also if it did so before the call', async () => {
  const watch = await openWatch(proxy.credentials);
  const match = { path: EXAMPLES, watch: true };
  const relayed = proxy.relayed(match, '"relayed-later"');
  await createExample(cluster.cp.credentials, 'relayed-later');
  assert.equal((await relayed).path, EXAMPLES);
  while (!watch.text().includes('"relayed-later"')) await once(watch.response, 'data'); // and the client gets it
  assert.equal((await proxy.relayed(match, '"relayed-later"')).path, EXAMPLES, 'a text passed before counts');
  await assert.rejects(proxy.relayed(match, '"never-relayed"', { timeout: 100 }), /within 100 ms/);
  watch.response.destroy();
});

test('hide() removes a group or a resource from discovery until removed', async () => {
  const groups = async (): Promise<string[]> => {
    const response = await sendRequest(proxy.credentials, 'GET', '/apis');
    return JSON.parse(response.text).groups.map((g: { name: string }) => g.name);
  };
  const resources = async (): Promise<string[]> => {
    const response = await sendRequest(proxy.credentials, 'GET', '/apis/kopf.dev/v1');
    if (response.status !== 200) return [`HTTP ${response.status}`];
    return JSON.parse(response.text).resources.map((r: { name: string }) => r.name);
  };
  assert.ok((await groups()).includes('kopf.dev'));
  assert.deepEqual(await resources(), ['kopfexamples', 'kopfexamples/status']);

  const group = proxy.hide({ group: 'kopf.dev' });
  assert.ok(!(await groups()).includes('kopf.dev'));
  assert.ok((await groups()).includes('apiextensions.k8s.io'));
  assert.deepEqual(await resources(), ['HTTP 404']);
  const object = await sendRequest(proxy.credentials, 'GET', `${EXAMPLES}/through`);
  assert.equal(object.status, 200, 'objects stay reachable');
  group.remove();

  const resource = proxy.hide({ group: 'kopf.dev', resource: 'kopfexamples' });
  assert.ok((await groups()).includes('kopf.dev'));
  assert.deepEqual(await resources(), []);
  resource.remove();
  assert.deepEqual(await resources(), ['kopfexamples', 'kopfexamples/status']);
  assert.ok(group.hits.count >= 3 && resource.hits.count >= 1);
});
