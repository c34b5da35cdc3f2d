/**
 * Object loggers' records as Kubernetes Events (Kopf's `posting.loggers`): off by default since
 * Kopf 1.44. When on, every record about an object at or above `posting.level` (and let through
 * by the logger's own threshold) becomes an Event with reason `Logging`, unless the logger is local.
 */
import { DEBUG, ERROR, INFO, WARNING, CRITICAL, levelName } from '../logging/levels.ts';
import type { LogTap } from '../logging/logger.ts';
import { errorText, type LogRecord } from '../logging/log-records.ts';
import type { EventPoster } from './poster.ts';

/** `Normal` for info, `Warning`, `Error`, `Fatal` for critical; levels between round up. */
export function eventTypeOfLevel(level: number): string {
  return level <= DEBUG ? 'Debug' : level <= INFO ? 'Normal' : level <= WARNING ? 'Warning'
    : level <= ERROR ? 'Error' : level <= CRITICAL ? 'Fatal' : levelName(level);
}

/** Add to an operator's root logger (`logger.withTaps(loggingTap(poster))`). */
export function loggingTap(poster: EventPoster): LogTap {
  return (record: LogRecord) => {
    const posting = poster.settings.posting;
    if (!record.ref || record.local || !posting.enabled || !posting.loggers || record.level < posting.level) return;
    const message = record.error === undefined ? record.message : `${record.message}\n${errorText(record.error)}`;
    poster.enqueue({ ref: record.ref, type: eventTypeOfLevel(record.level), reason: 'Logging', message });
  };
}
