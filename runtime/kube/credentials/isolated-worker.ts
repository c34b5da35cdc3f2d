/**
 * The child side of isolated credentials: load the default kubeconfig with client-node, resolve
 * the current context's credentials once, send them as plain data, and end.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { defaultKubeConfigCredentials, tokenFileOf } from './kubeconfig.ts';
import type { IsolatedResult } from './isolated.ts';
import { thrownText } from '../../structs/errors.ts';

async function resolveCredentials(): Promise<IsolatedResult> {
  const kc = new KubeConfig();
  try {
    const { agent, ...credentials } = await defaultKubeConfigCredentials(kc);
    if (agent) return { proxied: true };
    return { credentials, tokenFile: tokenFileOf(kc.getCurrentUser()) };
  } catch (error) {
    return { error: thrownText(error) };
  }
}

process.send?.(await resolveCredentials(), () => process.disconnect?.());
