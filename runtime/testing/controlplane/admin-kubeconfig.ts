/** A kubeconfig for the admin user with everything embedded, so the file alone is enough. */
import { stringify } from 'yaml';
import type { ApiCredentials } from './requests.ts';

const KUBECONFIG_NAME = 'kopf-local';

export function kubeconfigText(credentials: ApiCredentials, name: string = KUBECONFIG_NAME): string {
  const base64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: credentials.server, 'certificate-authority-data': base64(credentials.ca) } }],
    users: [
      {
        name,
        user: { 'client-certificate-data': base64(credentials.cert), 'client-key-data': base64(credentials.key) },
      }
    ],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
