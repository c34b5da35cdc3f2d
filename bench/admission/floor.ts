/**
 * The admission benchmark's floor: no framework, but the least a Node process does to serve the
 * same two webhooks — an HTTPS server that parses each review and answers it (the validator
 * admits, the mutator sends the same one-operation patch), and the same two webhook
 * configurations. What the runtime adds above this is the framework's; the floor's own cost is
 * the API server's calls, TLS, HTTP and JSON, which no framework can take away.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueCertificate } from '../../runtime/certificates/x509.ts';
import { KubeClient, createObject, isAlreadyExists, patchObject } from '../../runtime/kube/index.ts';
import { CONFIGURATIONS } from '../../runtime/webhooks/managed.ts';

const NAME = 'bench.kopf.dev';
const PATCH = Buffer.from(JSON.stringify([{ op: 'add', path: '/spec/injected', value: 123 }])).toString('base64');

interface Review {
  apiVersion: string; kind: string;
  request: { uid: string; object?: { metadata?: { labels?: Record<string, string> }; spec?: { injected?: number } } };
}

function answer(path: string, review: Review): unknown {
  const response: Record<string, unknown> = { uid: review.request.uid, allowed: true };
  if (path.endsWith('/mutate_fn')) Object.assign(response, { patch: PATCH, patchType: 'JSONPatch' });
  else if (review.request.object?.metadata?.labels?.probe) {
    const message = `probed, injected ${String(review.request.object.spec?.injected)}`;
    Object.assign(response, { allowed: false, status: { message, code: 403 } });
  }
  return { apiVersion: review.apiVersion, kind: review.kind, response };
}

const ca = createCertificateAuthority('floor-ca');
const serving = issueCertificate(ca, { commonName: '127.0.0.1', usage: 'server', ipAddresses: ['127.0.0.1'] });
const server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const path = (req.url ?? '').split('?')[0]!; // the API server adds `?timeout=30s`
    const body = JSON.stringify(answer(path, JSON.parse(Buffer.concat(chunks).toString()) as Review));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

const client = KubeClient.fromDefault();
const webhook = (id: string) => ({
  name: `${id.replace('_', '-')}.${NAME}`, sideEffects: 'None', failurePolicy: 'Fail', matchPolicy: 'Equivalent',
  rules: [{ apiGroups: ['kopf.dev'], apiVersions: ['v1'], resources: ['kopfexamples'], operations: ['*'], scope: '*' }],
  clientConfig: { url: `${url}/${id}`, caBundle: Buffer.from(ca.cert).toString('base64') },
  timeoutSeconds: 30, admissionReviewVersions: ['v1', 'v1beta1'],
});
for (const [kind, id] of [['mutating', 'mutate_fn'], ['validating', 'validate_fn']] as const) {
  await createObject(client, CONFIGURATIONS[kind], { metadata: { name: NAME } }).catch((e: unknown) => {
    if (!isAlreadyExists(e)) throw e;
  });
  await patchObject(client, CONFIGURATIONS[kind], { name: NAME }, { webhooks: [webhook(id)] } as never);
}
console.log(`Serving the floor's webhooks at ${url}`);

process.once('SIGTERM', () => {
  void (async () => {
    for (const kind of ['mutating', 'validating'] as const) {
      await patchObject(client, CONFIGURATIONS[kind], { name: NAME }, { webhooks: [] });
    }
    client.close();
    server.close();
    server.closeAllConnections();
  })();
});
