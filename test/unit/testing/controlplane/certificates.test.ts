import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createControlPlanePki } from '../../../../runtime/testing/controlplane/certificates.ts';

test('the serving certificate is signed by its CA and valid for localhost, 127.0.0.1 and ::1', () => {
  const pki = createControlPlanePki();
  const ca = new X509Certificate(pki.servingCa.cert);
  const serving = new X509Certificate(pki.serving.cert);
  assert.equal(ca.ca, true);
  assert.equal(serving.ca, false);
  assert.ok(serving.verify(ca.publicKey));
  assert.equal(serving.checkHost('localhost'), 'localhost');
  assert.equal(serving.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(serving.checkIP('::1'), '::1');
  assert.deepEqual(serving.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.ok(new Date(serving.validTo).getTime() > Date.now() + 300 * 24 * 3600 * 1000);
});

test('the admin certificate names user admin in group system:masters, signed by the client CA only', () => {
  const pki = createControlPlanePki();
  const admin = new X509Certificate(pki.admin.cert);
  assert.match(admin.subject, /CN=admin/);
  assert.match(admin.subject, /O=system:masters/);
  assert.ok(admin.verify(new X509Certificate(pki.clientCa.cert).publicKey));
  assert.ok(!admin.verify(new X509Certificate(pki.servingCa.cert).publicKey));
  assert.deepEqual(admin.keyUsage, ['1.3.6.1.5.5.7.3.2']);
});

test('TLS works both ways with them: the client trusts the server, the server authenticates the client', async () => {
  const pki = createControlPlanePki();
  const server = createServer({
    cert: pki.serving.cert, key: pki.serving.key, ca: pki.clientCa.cert, requestCert: true, rejectUnauthorized: true,
  }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    res.end(peer.subject.CN);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        ca: pki.servingCa.cert,
        cert: pki.admin.cert,
        key: pki.admin.key,
        agent: false,
      }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
      });
      req.on('error', reject).end();
    });
    assert.equal(body, 'admin');
  } finally {
    server.close();
  }
});

test('each call makes new keys', () => {
  const a = createControlPlanePki();
  const b = createControlPlanePki();
  assert.notEqual(a.admin.key, b.admin.key);
  assert.notEqual(a.serviceAccount.privateKey, b.serviceAccount.privateKey);
});
