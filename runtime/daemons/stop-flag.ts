/**
 * The stop flag of one timer or daemon (Kopf's `DaemonStopper`/`stopped`): set once, with the
 * reason why, and awaitable. Handlers see it as `stopped`; the engine sets it.
 *
 * Its sleeps are woken through a set of its own rather than listeners on its signal: a timer or
 * daemon sleeps once a second or so for every object, and each listener on an `AbortSignal` costs
 * more to add and remove than the sleep's own timer. The signal is made when someone asks for it.
 */
import type { Stopped, StopReason } from '../registry/contexts.ts';
import { currentClock, type ClockTimer } from '../structs/clock.ts';


export class Stopper implements Stopped {
  private controller: AbortController | undefined;
  private why: StopReason | undefined;
  /** Made at the first sleep or listener: a timer's stopper, which never sleeps, holds one listener only. */
  private wakers: Set<() => void> | undefined;

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.why !== undefined) this.abort();
    return this.controller.signal;
  }

  get stopped(): boolean { return this.why !== undefined; }
  get reason(): StopReason | undefined { return this.why; }

  /** Sets the flag; the first reason stays. Returns whether it was set now. */
  stop(reason: StopReason): boolean {
    if (this.why !== undefined) return false;
    this.why = reason;
    this.abort();
    if (this.wakers) for (const wake of [...this.wakers]) wake();
    return true;
  }

  /** Calls `listener` once when the flag is set (never, if it is set already). */
  onStop(listener: () => void): void {
    if (this.why === undefined) (this.wakers ??= new Set()).add(listener);
  }

  /** Arrow-bound: `const { wait } = stopped` works too. */
  readonly wait = (seconds = Infinity): Promise<boolean> => {
    if (this.why !== undefined) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const wakers = this.wakers ??= new Set();
      const wake = (): void => {
        timer.cancel();
        wakers.delete(wake);
        resolve(this.why !== undefined);
      };
      wakers.add(wake);
      // On the operator's clock: a test's virtual clock moves a daemon's sleeps too.
      const timer: ClockTimer = currentClock().setTimer(wake, Math.max(0, seconds * 1000));
    });
  };

  private abort(): void {
    if (this.controller && !this.controller.signal.aborted) {
      this.controller.abort(new DOMException(`The handler is stopped: ${this.why}.`, 'AbortError'));
    }
  }
}
