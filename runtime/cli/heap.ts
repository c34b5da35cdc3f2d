/**
 * The heap `kopf run` starts with. When much of what a scavenge finds is still alive — a burst of
 * watch events waiting in the queues — V8 grows its young generation up to 64 MiB per semi-space,
 * and an operator's resident memory never shrinks back from that peak. Capped at 16 MiB, the
 * young generation is scavenged more often instead: on the burst benchmark (3,000 objects) the
 * peak RSS fell from about 215 to 135 MiB for a few per cent more CPU.
 *
 * The size can only be set when the process starts, so the process re-executes itself with it
 * (the same pid, arguments, environment and standard streams), unless its user has chosen a size
 * (as a Node option or in NODE_OPTIONS) or the platform cannot replace a running process.
 */
const FLAG = '--max-semi-space-size';
const SEMI_SPACE_MIB = 16;

/** The Node options of this process: its command line's and NODE_OPTIONS'. */
function nodeOptions(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
}

/** Re-executes the process with the operator's heap flags, if they are not there yet; returns if not. */
export function execWithHeapFlags(): void {
  if (typeof process.execve !== 'function') return;
  if (nodeOptions().some((option) => option === FLAG || option.startsWith(`${FLAG}=`))) return;
  process.execve(process.execPath, [process.execPath, `${FLAG}=${SEMI_SPACE_MIB}`, ...process.execArgv, ...process.argv.slice(1)], process.env);
}
