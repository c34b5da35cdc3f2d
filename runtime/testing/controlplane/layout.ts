/**
 * A control plane's folder on disk: its certificates and keys, etcd's data, the processes' logs and
 * the kubeconfig; private to the user, as it holds the admin's keys, and removed with the control plane.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CertificateAuthority } from '../../certificates/x509.ts';
import { createControlPlanePki } from './certificates.ts';
import type { ApiCredentials } from './requests.ts';

export interface Layout {
  dir: string;
  pki: string;
  etcdData: string;
  logDir: string;
  kubeconfigPath: string;
}

/** A fresh private folder for one control plane; the logs go to `logDir` if given. */
export function prepareLayout(logDir: string | undefined): Layout {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-control-plane-'));
  const layout = {
    dir,
    pki: join(dir, 'pki'),
    etcdData: join(dir, 'etcd'),
    logDir: logDir ?? join(dir, 'logs'),
    kubeconfigPath: join(dir, 'kubeconfig.yaml'),
  };
  for (const folder of [layout.pki, layout.logDir]) mkdirSync(folder, { recursive: true, mode: 0o700 });
  return layout;
}

/** Where the API server finds its certificates and keys. */
export interface PkiFiles {
  servingCert: string;
  servingKey: string;
  clientCa: string;
  saPublic: string;
  saPrivate: string;
}

/** New certificates for one control plane, written into its folder; the admin's credentials to reach it. */
export function writePki(layout: Layout, apiServerUrl: string): {
  credentials: ApiCredentials;
  clientCa: CertificateAuthority;
  files: PkiFiles
} {
  const pki = createControlPlanePki();
  const files: PkiFiles = {
    servingCert: join(layout.pki, 'apiserver.crt'),
    servingKey: join(layout.pki, 'apiserver.key'),
    clientCa: join(layout.pki, 'client-ca.crt'),
    saPublic: join(layout.pki, 'service-account.pub'),
    saPrivate: join(layout.pki, 'service-account.key'),
  };
  writeFileSync(files.servingCert, pki.serving.cert + pki.servingCa.cert);
  writeFileSync(files.servingKey, pki.serving.key, { mode: 0o600 });
  writeFileSync(files.clientCa, pki.clientCa.cert);
  writeFileSync(files.saPublic, pki.serviceAccount.publicKey);
  writeFileSync(files.saPrivate, pki.serviceAccount.privateKey, { mode: 0o600 });
  const credentials = { server: apiServerUrl, ca: pki.servingCa.cert, cert: pki.admin.cert, key: pki.admin.key };
  return { credentials, clientCa: pki.clientCa, files };
}
