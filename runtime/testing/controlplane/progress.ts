/** How getting the binaries (a download, a build) reports its progress: lines, on stderr by default. */

export type ProgressReporter = (line: string) => void;

/** What every progress line starts with. */
export const PREFIX = '[kopf control-plane]';

export function defaultReporter(line: string): void {
  process.stderr.write(`${line}\n`);
}
