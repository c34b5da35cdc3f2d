/**
 * The webhook server with a client CA (`clientCaFile`), against forged client certificates, made
 * for real: a caller with a certificate signed by the CA reaches the handlers, and `sslpeer` holds
 * it; a self-signed certificate with the same name (made by openssl), one from an impostor CA of
 * the same name, a server certificate of the right CA, and no certificate at all are refused at
 * the handshake: no handler runs, the refusal is logged, and the server goes on.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createCertificateAuthority, issueCertificate, type KeyPair } from '../../../runtime/certificates/x509.ts';
import type { WebhookClientConfig, WebhookRequest } from '../../../runtime/config/admission.ts';
import { LogConfig, Logger, captureLogs } from '../../../runtime/logging/index.ts';
import { WARNING } from '../../../runtime/logging/levels.ts';
import { WebhookServer } from '../../../runtime/webhooks/server.ts';

const API_SERVER = 'system:kube-apiserver';
const dir = mkdtempSync(join(tmpdir(), 'kopf-client-certs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ca = createCertificateAuthority('clients-ca');
writeFileSync(join(dir, 'clients-ca.pem'), ca.cert);

/** A self-signed client certificate with the API server's name, as anyone can make one. */
function selfSigned(): KeyPair {
  const [key, cert] = [join(dir, 'forged.key'), join(dir, 'forged.pem')];
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-keyout', key, '-out', cert, '-subj', `/CN=${API_SERVER}`, '-addext', 'extendedKeyUsage=clientAuth',
  ], { stdio: 'ignore' });
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

interface Served {
  config: WebhookClientConfig;
  got: WebhookRequest[];
  capture: ReturnType<typeof captureLogs>;
}

async function withServer(body: (served: Served) => Promise<void>): Promise<void> {
  const capture = captureLogs();
  const logger = new Logger(new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }), 'kopf.admission');
  const got: WebhookRequest[] = [];
  const echo = async (req: WebhookRequest) => {
    got.push(req);
    return { status: 200, body: { cn: (req.sslpeer['subject'] as { CN?: string } | undefined)?.CN ?? null } };
  };
  const stop = new AbortController();
  const server = new WebhookServer({ addr: '127.0.0.1', clientCaFile: join(dir, 'clients-ca.pem') });
  const iterator = server.serve(echo, { signal: stop.signal, logger })[Symbol.asyncIterator]();
  const first = await iterator.next();
  try {
    await body({ config: first.value as WebhookClientConfig, got, capture });
  } finally {
    stop.abort();
    await iterator.next();
  }
}

/** POSTs as a client with this certificate (or none); the status and body, or the error of the connection. */
function call(config: WebhookClientConfig, client?: KeyPair): Promise<{ status: number; body: unknown } | Error> {
  const ca = Buffer.from(config.caBundle!, 'base64').toString();
  return new Promise((resolve) => {
    const req = request(`${config.url}/check`, { method: 'POST', ca, ...client }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      res.on('error', resolve);
    });
    req.on('error', resolve);
    req.end('{}');
  });
}

test('a certificate signed by the client CA reaches the handlers, and sslpeer holds it', async () => {
  await withServer(async ({ config, got }) => {
    const answer = await call(config, issueCertificate(ca, { commonName: API_SERVER, usage: 'client' }));
    assert.deepEqual(answer, { status: 200, body: { cn: API_SERVER } });
    assert.equal(got.length, 1);
  });
});

test('forged certificates and none at all are refused at the handshake; no handler runs; the server goes ' +
  'on', async () => {
  const impostor = createCertificateAuthority('clients-ca'); // the same name as the trusted CA, another key
  const forgeries: [string, KeyPair | undefined][] = [
    ['self-signed, with the API server\'s name', selfSigned()],
    [
      'signed by an impostor CA of the same name',
      issueCertificate(impostor, { commonName: API_SERVER, usage: 'client' }),
    ],
    ['signed by the CA, but for a server', issueCertificate(ca, { commonName: API_SERVER, usage: 'server' })],
    ['no certificate', undefined],
  ];
  await withServer(async ({ config, got, capture }) => {
    const refusals = () => capture.records.filter((r) => /^A TLS connection from .* is refused/.test(r.message));
    for (const [what, client] of forgeries) {
      const before = refusals().length;
      const answer = await call(config, client);
      assert.ok(answer instanceof Error, `${what}: refused, not answered: ${JSON.stringify(answer)}`);
      await capture.waitFor(() => refusals().length > before);
    }
    assert.equal(got.length, 0, 'no forged caller reached a handler');
    assert.deepEqual(refusals().map((r) => r.level), [WARNING, WARNING, WARNING, WARNING]);
    assert.deepEqual(refusals().map((r) => /: (.*?)(?: \(|\.$)/.exec(r.message)?.[1]), [
      'its client certificate is not valid', 'its client certificate is not valid',
      'its client certificate is not valid', 'it presented no client certificate',
    ]);
    const genuine = await call(config, issueCertificate(ca, { commonName: API_SERVER, usage: 'client' }));
    assert.deepEqual(genuine, { status: 200, body: { cn: API_SERVER } });
  });
});
