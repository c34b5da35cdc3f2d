/**
 * The login activity: the operator's credentials come from its `on.login` handlers instead of the
 * kubeconfig. Their results fill a vault (kube/credentials/vault.ts), which calls the login again
 * whenever it runs out — all credentials rejected with 401, or expired — as Kopf re-authenticates.
 */
import {
  connectionOf, isolatedDefaultCredentials, Vault, type ConnectionInfo, type LoginResults,
} from '../kube/index.ts';
import type { ActivityHandler } from '../registry/handlers.ts';
import { runActivity, type ActivityEnv } from './activities.ts';

/** A vault whose credentials the login handlers give; the first request logs in. */
export function loginVault(handlers: readonly ActivityHandler[], env: ActivityEnv): Vault {
  const logger = env.logger.child('kopf.activities');
  let logins = 0;
  return new Vault(async () => {
    const title = logins++ ? 'Re-authentication' : 'Initial authentication';
    logger.info(`${title} has been initiated.`);
    const results = await runActivity(handlers, 'authentication', env);
    if (results.size) logger.info(`${title} has finished.`);
    else logger.warning(`${title} has failed: no credentials were retrieved from the login handlers.`);
    return connections(results);
  });
}

function connections(results: ReadonlyMap<string, unknown>): LoginResults {
  const found = new Map<string, ConnectionInfo>();
  for (const [id, result] of results) {
    if (!isConnection(result)) {
      const expected = 'no ConnectionInfo (an object with `server`)';
      throw new TypeError(`The login handler '${id}' returned ${expected}: ${JSON.stringify(result)}`);
    }
    found.set(id, result);
  }
  return found;
}

function isConnection(value: unknown): value is ConnectionInfo {
  return typeof value === 'object' && value !== null && typeof (value as ConnectionInfo).server === 'string';
}

/**
 * The credentials the operator would use without login handlers (KUBECONFIG, ~/.kube/config, the
 * pod's service account), for a login handler that adds to them or passes them on (Kopf's
 * `login_with_kubeconfig`).
 */
export async function loginWithKubeconfig(): Promise<ConnectionInfo> {
  return connectionOf(await isolatedDefaultCredentials().get());
}
