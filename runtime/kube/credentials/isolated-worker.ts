/**
 * The child side of isolated credentials: load the default kubeconfig with client-node, resolve
 * the current context's credentials once, send them as plain data, and end.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigCredentials, tokenFileOf } from './kubeconfig.ts';
import type { IsolatedResult } from './isolated.ts';

async function resolveCredentials(): Promise<IsolatedResult> {
  try {
    const kc = new KubeConfig();
    kc.loadFromDefault();
    const { agent, ...credentials } = await kubeConfigCredentials(kc).get();
    if (agent) return { proxied: true };
    return { credentials, tokenFile: tokenFileOf(kc.getCurrentUser()) };
  } catch (error) {
    return { error: `kubeconfig: ${error instanceof Error ? error.message : String(error)}` };
  }
}

process.send?.(await resolveCredentials(), () => process.disconnect?.());
