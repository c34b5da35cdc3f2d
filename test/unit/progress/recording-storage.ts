/** A progress storage of a user's own, with no shortcut of Kopf's: it only records the calls it gets. */
import type { ProgressStorage } from '../../../runtime/progress/storage.ts';

export function recordingStorage(): { storage: ProgressStorage; calls: string[] } {
  const calls: string[] = [];
  const storage: ProgressStorage = {
    fetch: () => null,
    store: (key) => void calls.push(`store ${key}`),
    purge: (key) => void calls.push(`purge ${key}`),
    touch: () => undefined,
    clear: (essence) => essence,
    flush: () => void calls.push('flush'),
  };
  return { storage, calls };
}
