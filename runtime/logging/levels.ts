/**
 * Log levels as numbers, the same scale as Python's `logging` (Kopf's `posting.level` is one of
 * these), so settings and thresholds carry over from Kopf unchanged.
 */

export const DEBUG = 10;
export const INFO = 20;
export const WARNING = 30;
export const ERROR = 40;
export const CRITICAL = 50;

/** A record is shown when its level is at least the threshold; this one lets everything through. */
export const NOTSET = 0;

const NAMES: ReadonlyMap<number, string> = new Map([
  [DEBUG, 'DEBUG'], [INFO, 'INFO'], [WARNING, 'WARNING'], [ERROR, 'ERROR'], [CRITICAL, 'CRITICAL'], [NOTSET, 'NOTSET'],
]);

/** `INFO` for 20; levels between the named ones read `Level 25`, as Python prints them. */
export function levelName(level: number): string {
  return NAMES.get(level) ?? `Level ${level}`;
}

/** The JSON format's `severity`: a level rounds up to the next named one. */
export function severityOf(level: number): 'debug' | 'info' | 'warn' | 'error' | 'fatal' {
  return level <= DEBUG ? 'debug' : level <= INFO ? 'info' : level <= WARNING ? 'warn' : level <= ERROR ? 'error'
    : 'fatal';
}

/** How much the operator says: the CLI's `--quiet`, default, `--verbose` and `--debug`. */
export type Verbosity = 'quiet' | 'normal' | 'verbose' | 'debug';

export function levelOfVerbosity(verbosity: Verbosity): number {
  return verbosity === 'quiet' ? WARNING : verbosity === 'normal' ? INFO : DEBUG;
}
