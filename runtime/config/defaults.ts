/**
 * Kopf's defaults for a fresh settings tree, with a caller's overrides applied and the result
 * validated, so that a wrong value fails at once with the setting's name.
 */
import { INFO } from '../logging/levels.ts';
import { AnnotationsDiffBaseStorage, SmartProgressStorage } from '../progress/index.ts';
import type { OperatorSettings, SettingsOverrides } from './settings.ts';
import { validateSettings } from './validation.ts';

/** Kopf's finalizer, kept for compatibility: operators can hand objects over to each other. */
export const DEFAULT_FINALIZER = 'kopf.zalando.org/KopfFinalizerMarker';

/** A fresh settings tree with Kopf's defaults, optionally overridden; invalid values throw `SettingsError`. */
export function defaultSettings(overrides: SettingsOverrides = {}): OperatorSettings {
  const settings: OperatorSettings = {
    process: { ultimateExitingTimeout: 600 },
    posting: {
      enabled: true, loggers: false, level: INFO,
      reportingComponent: 'kopf', reportingInstance: 'dev', eventNamePrefix: 'kopf-event-',
    },
    peering: {
      name: 'default', stealth: false, priority: 0, lifetime: 60,
      mandatory: false, standalone: false, clusterwide: false,
    },
    leaderElection: { name: null, namespace: null, leaseDuration: 15, renewDeadline: 10, retryPeriod: 2 },
    sharding: { ring: null, namespace: null, leaseDuration: 15, renewDeadline: 10, retryPeriod: 2 },
    watching: {
      serverTimeout: null,
      clientTimeout: null,
      connectTimeout: null,
      reconnectBackoff: 0.1,
      inactivityTimeout: 70,
      streamingLists: false,
    },
    queueing: {
      workerLimit: 64, heldLimit: 10000, idleTimeout: 5, exitTimeout: 2,
      errorDelays: [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610],
    },
    scanning: { disabled: false },
    admission: { server: null, managed: null },
    execution: { defaultBackoff: 60 },
    reconciling: { backoffBase: 0.005, backoffCap: 1000 },
    networking: {
      requestTimeout: 300,
      connectTimeout: null,
      errorBackoffs: [1, 1, 2, 3, 5, 8, 13, 21],
      enforceRetryAfter: false,
      readCoalescing: 0,
    },
    persistence: {
      finalizer: DEFAULT_FINALIZER,
      progressStorage: new SmartProgressStorage(),
      diffbaseStorage: new AnnotationsDiffBaseStorage(),
      consistencyTimeout: 5,
    },
    status: { conditions: false },
    background: { cancellationPolling: 60, instantExitTimeout: null, instantExitZeroTimeCycles: 10 },
  };
  applyOverrides(settings, overrides);
  validateSettings(settings);
  return settings;
}

function applyOverrides(settings: OperatorSettings, overrides: SettingsOverrides): void {
  const groups = settings as unknown as Record<string, Record<string, unknown> | undefined>;
  for (const [group, values] of Object.entries(overrides)) {
    const target = (groups[group] ??= {}); // an unknown group is reported by the validation
    for (const [field, value] of Object.entries(values ?? {})) {
      if (value !== undefined) target[field] = value;
    }
  }
}
