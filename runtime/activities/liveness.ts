/**
 * What an operator's liveness is made of: its probe handlers' results (Kopf's `on.probe`), while
 * it runs and while its watch streams are fresh. The endpoint that answers with it is `probing.ts`.
 */
import type { WatchFreshness } from '../kube/index.ts';
import type { Logger } from '../logging/index.ts';
import type { ActivityHandler } from '../registry/handlers.ts';
import type { Route } from '../servers/endpoints.ts';
import { runActivity, type ActivityEnv } from './activities.ts';
import { livenessRoute } from './probing.ts';

export interface Liveness {
  /** The probe handlers; none answers `{}`. */
  readonly probes: readonly ActivityHandler[];
  /** Whether the operator runs: it is not alive while starting or stopping. */
  running(): boolean;
  /** When each watch stream last heard from the server. */
  readonly freshness: WatchFreshness;
}

/** The liveness endpoint's route at `url`; the probes run with the activities' `env`. */
export function operatorLiveness(url: string, liveness: Liveness, env: ActivityEnv, logger: Logger): Route {
  return livenessRoute(url, {
    probe: () => runActivity(liveness.probes, 'probe', env),
    problem: () => {
      if (!liveness.running()) return 'The operator is not running.';
      const stale = liveness.freshness.stale().map((s) => `${s.name} (${s.overdue.toFixed(1)} s overdue)`);
      return stale.length ? `Watch-streams silent past their inactivity timeout: ${stale.join(', ')}.` : null;
    },
  }, logger);
}
