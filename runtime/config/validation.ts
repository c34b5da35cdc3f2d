/**
 * Cheap checks of a settings tree, so that a typo or a wrong unit fails at startup with the
 * setting's name rather than later as odd behaviour. Run by `defaultSettings()`, and meant to be
 * run again after startup handlers have changed the tree.
 */
import type { OperatorSettings } from './settings.ts';

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

type Check = (value: unknown) => string | null;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

const seconds: Check = (v) => (isNumber(v) && v >= 0 ? null : 'a non-negative number of seconds');
const optionalSeconds: Check = (v) => (
  v === null || (isNumber(v) && v >= 0) ? null : 'a non-negative number of seconds or null'
);
const positiveSeconds: Check = (v) => (isNumber(v) && v > 0 ? null : 'a positive number of seconds');
const flag: Check = (v) => (typeof v === 'boolean' ? null : 'true or false');
const text: Check = (v) => (typeof v === 'string' && v !== '' ? null : 'a non-empty string');
const optionalText: Check = (v) => (
  v === null || (typeof v === 'string' && v !== '') ? null : 'a non-empty string or null'
);
const integer: Check = (v) => (Number.isInteger(v) ? null : 'an integer');
const count: Check = (v) => (Number.isInteger(v) && (v as number) >= 0 ? null : 'a non-negative integer');
const limit: Check = (v) => (
  v === null || (Number.isInteger(v) && (v as number) >= 1) ? null : 'a positive integer or null'
);
const level: Check = (v) => (
  Number.isInteger(v) && (v as number) >= 0 ? null : 'a log level (e.g. 10 debug, 20 info, 30 warning, 40 error)'
);
const storage: Check = (v) => (v !== null && typeof v === 'object' ? null : 'a storage object');
const anything: Check = () => null;
/** A ring's name: a DNS label short enough to leave room in its members' names (Lease names, label values). */
const ringName: Check = (v) => (
  v === null || (typeof v === 'string' && /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/.test(v)) ? null
    : 'a lowercase DNS label of at most 40 characters (letters, digits, dashes) or null'
);

/** Arrays are checked item by item; other iterables must be re-iterable, as they are read many times. */
const delays: Check = (v) => {
  const expected = 'an array (or re-iterable) of non-negative numbers of seconds';
  if (Array.isArray(v)) return v.every((d) => isNumber(d) && d >= 0) ? null : expected;
  if (v === null || typeof v !== 'object' || !(Symbol.iterator in v)) return expected;
  const iterable = v as Iterable<unknown>;
  return (iterable[Symbol.iterator]() as unknown) === iterable ? `${expected}, not a one-off iterator` : null;
};

const SCHEMA: { [G in keyof OperatorSettings]: { [F in keyof OperatorSettings[G]]-?: Check } } = {
  process: { ultimateExitingTimeout: optionalSeconds },
  posting: {
    enabled: flag, loggers: flag, level,
    reportingComponent: text, reportingInstance: text, eventNamePrefix: text,
  },
  peering: {
    name: text, stealth: flag, priority: integer, lifetime: positiveSeconds,
    mandatory: flag, standalone: flag, clusterwide: flag,
  },
  leaderElection: {
    name: optionalText, namespace: optionalText, leaseDuration: positiveSeconds, renewDeadline: positiveSeconds,
    retryPeriod: positiveSeconds,
  },
  sharding: {
    ring: ringName, namespace: optionalText, leaseDuration: positiveSeconds, renewDeadline: positiveSeconds,
    retryPeriod: positiveSeconds,
  },
  watching: {
    serverTimeout: optionalSeconds, clientTimeout: optionalSeconds, connectTimeout: optionalSeconds,
    reconnectBackoff: seconds, inactivityTimeout: positiveSeconds, streamingLists: flag,
  },
  queueing: { workerLimit: limit, heldLimit: limit, idleTimeout: seconds, exitTimeout: seconds, errorDelays: delays },
  scanning: { disabled: flag },
  admission: { server: anything, managed: optionalText },
  execution: { defaultBackoff: seconds },
  reconciling: { backoffBase: positiveSeconds, backoffCap: positiveSeconds },
  networking: {
    requestTimeout: optionalSeconds,
    connectTimeout: optionalSeconds,
    errorBackoffs: delays,
    enforceRetryAfter: flag,
    readCoalescing: seconds,
  },
  persistence: { finalizer: text, progressStorage: storage, diffbaseStorage: storage, consistencyTimeout: seconds },
  status: { conditions: flag },
  background: {
    cancellationPolling: positiveSeconds,
    instantExitTimeout: optionalSeconds,
    instantExitZeroTimeCycles: count,
  },
};

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  return String(value);
}

/** Throws `SettingsError` naming every bad or unknown setting. */
export function validateSettings(settings: OperatorSettings): void {
  const problems: string[] = [];
  const tree = settings as unknown as Record<string, unknown>;
  for (const group of Object.keys(tree)) {
    if (!Object.hasOwn(SCHEMA, group)) problems.push(`settings.${group} is not a settings group.`);
  }
  for (const [group, fields] of Object.entries(SCHEMA) as [string, Record<string, Check>][]) {
    const values = tree[group];
    if (values === null || typeof values !== 'object') {
      problems.push(`settings.${group} must be an object; got ${show(values)}.`);
      continue;
    }
    const record = values as Record<string, unknown>;
    for (const field of Object.keys(record)) {
      if (!Object.hasOwn(fields, field)) problems.push(`settings.${group}.${field} is not a setting.`);
    }
    for (const [field, check] of Object.entries(fields)) {
      const expected = check(record[field]);
      if (expected !== null)
        problems.push(`settings.${group}.${field} must be ${expected}; got ${show(record[field])}.`);
    }
  }
  for (const group of ['leaderElection', 'sharding'] as const) {
    const lease = settings[group] as Partial<OperatorSettings[typeof group]> | undefined;
    if (lease && isNumber(lease.renewDeadline) && isNumber(lease.leaseDuration)
      && lease.renewDeadline >= lease.leaseDuration) {
      problems.push(`settings.${group}.renewDeadline must be shorter than leaseDuration, so that a holder that `
        + 'cannot renew stops before its lease expires.');
    }
  }
  if (settings.leaderElection?.name && settings.sharding?.ring) {
    problems.push('settings.leaderElection.name and settings.sharding.ring exclude each other: a ring\'s replicas '
      + 'are all active, and a leader election keeps all but one standing by.');
  }
  const reconciling = settings.reconciling as Partial<OperatorSettings['reconciling']> | undefined;
  if (reconciling && isNumber(reconciling.backoffBase) && isNumber(reconciling.backoffCap) &&
    reconciling.backoffCap < reconciling.backoffBase) {
    problems.push('settings.reconciling.backoffCap must not be shorter than backoffBase.');
  }
  if (problems.length) throw new SettingsError(problems.join(' '));
}
