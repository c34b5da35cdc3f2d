/**
 * What the engine keeps about the timers and daemons of one object (Kopf's `DaemonsMemory`):
 * the latest body they see, when its essence last changed (for idle timers), the tasks running,
 * and the handlers that ended for good and are never spawned again for it in this process.
 */
import type { Logger } from '../logging/index.ts';
import type { KubeObject } from '../structs/resources.ts';
import type { Memo } from '../registry/contexts.ts';
import type { SpawningHandler } from '../registry/handlers.ts';
import { handlerTitle } from '../progress/index.ts';
import { Stopper } from './stop-flag.ts';
import { LiveViews } from './views.ts';
import { currentClock } from '../structs/clock.ts';

/** One timer or daemon running for one object. */
export class Spawned {
  readonly handler: SpawningHandler;
  readonly stopper = new Stopper();
  /** Aborted to cancel the handler by force: the `signal` of its context. */
  readonly canceller = new AbortController();
  readonly logger: Logger;
  /** `Timer 'id'` or `Daemon 'id'`, as Kopf names them. */
  readonly title: string;
  /** Settles when the task has exited; set when it starts. */
  exited: Promise<void> = Promise.resolve();
  done = false;
  /** Given up on: it did not exit in time; its object no longer waits for it. */
  abandoned = false;

  constructor(handler: SpawningHandler, logger: Logger) {
    this.handler = handler;
    this.logger = logger;
    this.title = handlerTitle(handler.id, handler.kind === 'timer' ? 'Timer' : 'Daemon');
  }
}

export class ObjectDaemons {
  /** The parts of the latest body seen, as its timers and daemons see them (live views). */
  readonly views: LiveViews;
  private latest: KubeObject;
  readonly memo: Memo;
  /** When the essence last changed (the operator's clock's `elapsed()`), for idle timers. */
  idleResetAt = currentClock().elapsed();
  readonly running = new Map<string, Spawned>();
  readonly foreverStopped = new Set<string>();
  /** The deletion's stop of the running tasks, while it goes on. */
  deletion: Promise<void> | undefined;

  constructor(body: KubeObject, memo: Memo) {
    this.latest = body;
    this.views = new LiveViews(body);
    this.memo = memo;
  }

  /** The latest body seen; setting it updates the views handed out to the tasks. */
  get body(): KubeObject { return this.latest; }
  set body(body: KubeObject) {
    if (body === this.latest) return;
    this.latest = body;
    this.views.refresh(body);
  }

  /** Whether a task still holds the object (running, and not abandoned). */
  get holding(): boolean {
    for (const spawned of this.running.values()) if (!spawned.abandoned) return true;
    return false;
  }
}
