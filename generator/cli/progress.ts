/**
 * Progress on stderr for inputs large enough to take a while: one updating line on a terminal,
 * a line per phase otherwise (logs stay short).
 */
import type { ProgressEvent } from '../pipeline/generate.ts';

/** Below this much input a run takes about a second: no progress worth showing. */
const LARGE_BYTES = 2_000_000;
const LARGE_FILES = 50;

const LABELS: { [phase in ProgressEvent['phase']]: string } = {
  read: 'reading CRD files',
  model: 'parsing and checking CRDs',
  render: 'generating modules',
};

export function progressReporter(stream: NodeJS.WriteStream): (event: ProgressEvent) => void {
  let phase: ProgressEvent['phase'] | undefined;
  let shown = false;
  let last = 0;
  return (event) => {
    if (!shown && event.bytes < LARGE_BYTES && event.total < LARGE_FILES) return;
    shown = true;
    const finished = event.done >= event.total;
    if (stream.isTTY) {
      const now = Date.now();
      if (!finished && now - last < 100 && phase === event.phase) return;
      last = now;
      const text = `kopf-gen: ${LABELS[event.phase]} ${event.done}/${event.total}${event.item ? ` ${event.item}` : ''}`;
      stream.write(`\r\x1b[K${text.slice(0, (stream.columns || 100) - 1)}${finished ? '\n' : ''}`);
    } else if (phase !== event.phase) {
      stream.write(`kopf-gen: ${LABELS[event.phase]} (${event.total}, ${(event.bytes / 1e6).toFixed(1)} MB of CRDs)\n`);
    }
    phase = event.phase;
  };
}
