/**
 * When a starting etcd or kube-apiserver counts as ready, and how a start that fails is reported:
 * with the process's exit or the probe it kept failing, and the last lines of its log.
 */
import { get as httpGet } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { requestWithRetry, type ApiCredentials } from './requests.ts';
import type { SupervisedProcess } from './processes.ts';

export class ControlPlaneStartError extends Error {
  override name = 'ControlPlaneStartError';
  /** A port was taken by a process outside kopf's reservations: worth another try on other ports. */
  readonly portTaken: boolean;

  constructor(message: string, portTaken: boolean) {
    super(message);
    this.portTaken = portTaken;
  }
}

function startFailure(child: SupervisedProcess, what: string): ControlPlaneStartError {
  const reason = child.running ? `${what} in time` : child.describeExit();
  const tail = child.logTail();
  return new ControlPlaneStartError(
    `${child.name} did not start: ${reason}. Last lines of ${child.logPath}:\n${tail}`,
    /address already in use/i.test(tail),
  );
}

/**
 * Polls until `probe` says ready; fails early if the process exits. Polling is all there is:
 * neither binary announces readiness in a way that can be awaited.
 */
async function pollReady(
  child: SupervisedProcess,
  deadline: number,
  what: string,
  probe: () => Promise<boolean>,
): Promise<void> {
  while (child.running) {
    if (Date.now() > deadline) throw startFailure(child, what);
    const ready = await probe().catch(() => false);
    if (ready && child.running) return;
    await Promise.race([sleep(100), child.exitedInBackground]);
  }
  throw startFailure(child, what);
}

export function waitEtcdReady(url: string, etcd: SupervisedProcess, deadline: number): Promise<void> {
  return pollReady(etcd, deadline, 'no healthy /health', () => new Promise<boolean>((resolve) => {
    const req = httpGet(`${url}/health`, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  }));
}

/** Ready means /readyz answers ok (storage initialised, post-start hooks done) and `default` exists. */
export function waitApiServerReady(
  credentials: ApiCredentials,
  apiServer: SupervisedProcess,
  deadline: number,
): Promise<void> {
  return pollReady(apiServer, deadline, 'not ready (/readyz and the default namespace)', async () => {
    const readyz = await requestWithRetry(credentials, 'GET', '/readyz', deadline, { timeoutMs: 2000 });
    if (readyz.status !== 200) return false;
    const namespace = await requestWithRetry(
      credentials,
      'GET',
      '/api/v1/namespaces/default',
      deadline,
      { timeoutMs: 2000 },
    );
    return namespace.status === 200;
  });
}
