/**
 * The child side of isolated credentials: load the default kubeconfig with client-node, resolve
 * the current context's credentials once, send them as plain data, and end.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigCredentials, loadDefaultKubeConfig, tokenFileOf, withSource } from './kubeconfig.ts';
import type { IsolatedResult } from './isolated.ts';
import { thrownText } from '../../structs/errors.ts';

async function resolveCredentials(): Promise<IsolatedResult> {
  const kc = new KubeConfig();
  let source: string;
  try {
    source = loadDefaultKubeConfig(kc);
  } catch (error) {
    return { error: thrownText(error) };
  }
  try {
    const { agent, ...credentials } = await kubeConfigCredentials(kc).get();
    if (agent) return { proxied: true };
    return { credentials, tokenFile: tokenFileOf(kc.getCurrentUser()) };
  } catch (error) {
    return { error: withSource(source, error).message };
  }
}

process.send?.(await resolveCredentials(), () => process.disconnect?.());
