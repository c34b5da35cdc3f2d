/**
 * The stop flag of one timer or daemon (Kopf's `DaemonStopper`/`stopped`): set once, with the
 * reason why, and awaitable. Handlers see it as `stopped`; the engine sets it.
 */
import type { Stopped, StopReason } from '../registry/contexts.ts';
import { sleep } from '../queueing/sleeping.ts';

export class Stopper implements Stopped {
  private readonly controller = new AbortController();
  private why: StopReason | undefined;

  get signal(): AbortSignal { return this.controller.signal; }
  get stopped(): boolean { return this.why !== undefined; }
  get reason(): StopReason | undefined { return this.why; }

  /** Sets the flag; the first reason stays. Returns whether it was set now. */
  stop(reason: StopReason): boolean {
    if (this.why !== undefined) return false;
    this.why = reason;
    this.controller.abort(new DOMException(`The handler is stopped: ${reason}.`, 'AbortError'));
    return true;
  }

  /** Arrow-bound: `const { wait } = stopped` works too. */
  readonly wait = async (seconds?: number): Promise<boolean> => {
    await sleep(seconds ?? Infinity, this.controller.signal);
    return this.stopped;
  };
}
