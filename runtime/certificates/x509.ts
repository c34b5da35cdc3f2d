/**
 * X.509 certificate authorities and the certificates they issue, made in-process: for the local
 * control plane's PKI and for the webhook server's self-signed serving certificate. ECDSA P-256
 * keeps generation under a millisecond.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIPv4 } from 'node:net';
import {
  bitString, boolean, explicit, implicit, namedBits, objectIdentifier, octetString, pem, sequence, set, smallInteger,
  time, unsignedInteger, utf8String, type Der,
} from './asn1.ts';

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 };

/**
 * Long enough for a `kopf control-plane` or an operator left running; the clock-skew margin covers
 * a host that lags.
 */
const VALIDITY_MS = 365 * 24 * 3600 * 1000;
const SKEW_MS = 3600 * 1000;

export interface KeyPair {
  /** PEM certificate. */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
}

export interface CertificateAuthority extends KeyPair {
  readonly privateKey: KeyObject;
  readonly subject: Der;
  readonly keyId: Buffer;
}

export interface CertificateRequest {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'server' | 'client';
}

function distinguishedName(commonName: string, organizations: string[] = []): Der {
  const attribute = (oid: string, value: string): Der => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(...organizations.map((o) => attribute(OID.organization, o)), attribute(OID.commonName, commonName));
}

function extension(oid: string, critical: boolean, value: Der): Der {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

function ipBytes(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  const [head, tail = ''] = address.split('::');
  const groups = (part: string): string[] => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...Array<string>(address.includes('::') ? missing : 0).fill('0'), ...groups(tail)];
  return Buffer.concat(all.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

function newKey(): { privateKey: KeyObject; spki: Buffer; keyId: Buffer; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const keyId = createHash('sha1').update(spki).digest();
  return { privateKey, spki, keyId, pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function signCertificate(
  subject: Der, spki: Buffer, issuer: Der, issuerKey: KeyObject, extensions: Der[],
): string {
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const now = Date.now();
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serial),
    algorithm,
    issuer,
    sequence(time(new Date(now - SKEW_MS)), time(new Date(now + VALIDITY_MS))),
    subject,
    spki,
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, issuerKey);
  return pem('CERTIFICATE', sequence(tbs, algorithm, bitString(signature)));
}

export function createCertificateAuthority(commonName: string): CertificateAuthority {
  const key = newKey();
  const subject = distinguishedName(commonName, ['kopf']);
  const cert = signCertificate(subject, key.spki, subject, key.privateKey, [
    extension(OID.basicConstraints, true, sequence(boolean(true))),
    extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])),
    extension(OID.subjectKeyIdentifier, false, octetString(key.keyId)),
  ]);
  return { cert, key: key.pem, privateKey: key.privateKey, subject, keyId: key.keyId };
}

export function issueCertificate(ca: CertificateAuthority, request: CertificateRequest): KeyPair {
  const key = newKey();
  const usage = request.usage === 'server' ? OID.serverAuth : OID.clientAuth;
  const altNames = [
    ...(request.dnsNames ?? []).map((name) => implicit(2, Buffer.from(name, 'ascii'))),
    ...(request.ipAddresses ?? []).map((ip) => implicit(7, ipBytes(ip))),
  ];
  const extensions = [
    extension(OID.basicConstraints, true, sequence()),
    extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature])),
    extension(OID.extKeyUsage, false, sequence(objectIdentifier(usage))),
    extension(OID.subjectKeyIdentifier, false, octetString(key.keyId)),
    extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, ca.keyId))),
    ...(altNames.length ? [extension(OID.subjectAltName, false, sequence(...altNames))] : []),
  ];
  const subject = distinguishedName(request.commonName, request.organizations);
  return { cert: signCertificate(subject, key.spki, ca.subject, ca.privateKey, extensions), key: key.pem };
}

