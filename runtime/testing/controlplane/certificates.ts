/**
 * The control plane's PKI, as envtest has it: one CA for the serving certificate, another whose
 * certificates authenticate users (the apiserver's --client-ca-file: CN = user, O = groups), and a
 * key pair for signing service-account tokens.
 */
import { generateKeyPairSync } from 'node:crypto';
import {
  createCertificateAuthority, issueCertificate, type CertificateAuthority, type KeyPair,
} from '../../certificates/x509.ts';

export interface ControlPlanePki {
  servingCa: CertificateAuthority;
  serving: KeyPair;
  clientCa: CertificateAuthority;
  admin: KeyPair;
  serviceAccount: { privateKey: string; publicKey: string };
}

/** Users in `system:masters` bypass RBAC and API Priority & Fairness queueing, as envtest's admin. */
export function createControlPlanePki(): ControlPlanePki {
  const servingCa = createCertificateAuthority('kopf-serving-ca');
  const clientCa = createCertificateAuthority('kopf-client-ca');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    servingCa,
    serving: issueCertificate(servingCa, {
      commonName: 'localhost', usage: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'],
    }),
    clientCa,
    admin: issueCertificate(clientCa, { commonName: 'admin', organizations: ['system:masters'], usage: 'client' }),
    serviceAccount: {
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    },
  };
}
