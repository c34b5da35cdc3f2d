/**
 * The timers and daemons of one served resource: spawned, matched and stopped per object on every
 * event (as Kopf's kopf/_core/engines/daemons.py does), stopped all at once when the operator
 * exits or pauses.
 *
 * Per event, `handle()`:
 *   - refreshes the live body, and the idle time when the essence has changed;
 *   - object being deleted: tells every task to stop ('resource deleted'); the object's finalizer
 *     is held until they have exited, and the object is processed again then;
 *   - otherwise: spawns the matching handlers not running yet (never two of one handler for one
 *     object; none while paused or exiting), and stops the running ones that no longer match.
 * A task that ends on its own (success, failure for good) is never spawned again for its object in
 * this process; one stopped by a mismatch or a pause is spawned again on a later event.
 */
import { thrownText } from '../structs/errors.ts';
import type { StopReason } from '../registry/contexts.ts';
import type { SpawningHandler } from '../registry/handlers.ts';
import { matchesBody } from '../registry/filters.ts';
import type { ResourceScope } from '../actions/scope.ts';
import type { EventView, SpawningVerdict } from '../actions/engines.ts';
import { ObjectDaemons, Spawned } from './object-daemons.ts';
import { runDaemon, runTimer } from './loops.ts';
import { stopForDeletion, stopInMemory } from './stopping.ts';
import type { Pausable, Pausing } from './pausing.ts';
import { currentClock } from '../structs/clock.ts';

const NOTHING: SpawningVerdict = Object.freeze({ required: false, holding: false });

export class Spawner implements Pausable {
  readonly handlers: readonly SpawningHandler[];
  private readonly proc: ResourceScope;
  private readonly pausing: Pausing | undefined;
  private readonly objects = new Map<string, ObjectDaemons>();
  /** Every task not exited yet, also of objects forgotten already (the exit waits for them too). */
  private readonly tasks = new Set<Spawned>();
  private readonly idling: boolean;
  private exiting = false;

  constructor(handlers: readonly SpawningHandler[], proc: ResourceScope, pausing?: Pausing) {
    this.handlers = handlers;
    this.proc = proc;
    this.pausing = pausing;
    this.idling = handlers.some((h) => h.kind === 'timer' && h.idle !== undefined);
    pausing?.join(this);
  }

  /** The daemons (not the timers) running now, those of forgotten objects included; counted when asked. */
  get daemonsRunning(): number {
    let count = 0;
    for (const task of this.tasks) if (task.handler.kind === 'daemon') count++;
    return count;
  }

  handle(event: EventView): SpawningVerdict {
    const matching = this.matching(event);
    let object = this.objects.get(event.key);
    if (!object && !matching.length) return NOTHING;
    if (!object) this.objects.set(event.key, object = new ObjectDaemons(event.body, event.memo));
    object.body = event.body;
    if (this.idling && event.changed()) object.idleResetAt = currentClock().elapsed();
    const required = matching.some((h) => !object.foreverStopped.has(h.id));
    if (event.deleting) {
      this.stopForDeletion(event.key, object);
      return { required, holding: object.holding };
    }
    for (const spawned of object.running.values()) {
      if (!matching.includes(spawned.handler) && !spawned.stopper.stopped) {
        void this.stop(spawned, 'no longer matching', stopForDeletion);
      }
    }
    if (!this.exiting && !this.pausing?.paused) {
      for (const handler of matching) {
        const stopped = object.foreverStopped.has(handler.id);
        if (!object.running.has(handler.id) && !stopped) this.spawn(event.key, object, handler);
      }
    }
    if (!object.running.size && !object.foreverStopped.size && !matching.length) this.objects.delete(event.key);
    return { required, holding: false };
  }

  /** The object is gone from the cluster: its tasks are told to stop, and it is forgotten. */
  forget(key: string): void {
    const object = this.objects.get(key);
    if (!object) return;
    this.objects.delete(key);
    for (const spawned of object.running.values()) {
      if (!spawned.stopper.stopped) void this.stop(spawned, 'resource deleted', stopForDeletion);
    }
  }

  /**
   * The object is handled elsewhere from now on (another replica of a ring): its tasks are stopped
   * as for a pause (they go on in the other replica), and it is forgotten here. Resolves once they
   * have exited.
   */
  async letGo(key: string): Promise<void> {
    const object = this.objects.get(key);
    if (!object) return;
    this.objects.delete(key);
    const running = [...object.running.values()];
    await Promise.all(running.map((spawned) => this.stop(spawned, 'operator pausing', stopInMemory)));
  }

  /** The operator exits: every task is stopped (within its limits); none is spawned any more. */
  async stopAll(): Promise<void> {
    this.exiting = true;
    await Promise.all([...this.tasks].map((spawned) => this.stop(spawned, 'operator exiting', stopInMemory)));
  }

  async pause(): Promise<void> {
    await Promise.all([...this.tasks].map((spawned) => this.stop(spawned, 'operator pausing', stopInMemory)));
  }

  /** After a pause: the objects are processed again, which spawns what matches. */
  resume(): void {
    for (const [key, object] of this.objects) this.requeue(key, object);
  }

  /** How many tasks are running now (for tests and the benchmark). */
  get size(): number { return this.tasks.size; }

  private matching(event: EventView): SpawningHandler[] {
    return this.handlers.filter((h) => matchesBody(h.filters, event.body, event.ctx));
  }

  private spawn(key: string, object: ObjectDaemons, handler: SpawningHandler): void {
    const spawned = new Spawned(handler, this.proc.logger.forObject(object.body));
    object.running.set(handler.id, spawned);
    this.tasks.add(spawned);
    const env = { spawned, object, proc: this.proc };
    spawned.exited = (handler.kind === 'daemon' ? runDaemon(env, handler) : runTimer(env, handler))
      .catch((error: unknown) => {
        // A cancelled handler has said so ("… is cancelled. Will escalate."); anything else is unexpected.
        if (spawned.canceller.signal.aborted) return;
        spawned.logger.error(`${spawned.title} failed unexpectedly: ${thrownText(error)}`, error);
      })
      .finally(() => this.exited(key, object, spawned));
  }

  private exited(key: string, object: ObjectDaemons, spawned: Spawned): void {
    spawned.done = true;
    this.tasks.delete(spawned);
    if (object.running.get(spawned.handler.id) === spawned) object.running.delete(spawned.handler.id);
    if (spawned.stopper.stopped) return;
    // Ended on its own (returned, failed for good): never again for this object in this process.
    // It may have been the last to need the finalizer, and its own last write may have been
    // processed while it still ran: the object is processed again to see.
    object.foreverStopped.add(spawned.handler.id);
    if (this.objects.get(key) === object && !this.exiting) this.requeue(key, object);
  }

  /** Processes the object again, as its next event would (its tasks, or a pause, changed what it needs). */
  private requeue(key: string, object: ObjectDaemons): void {
    this.proc.enqueue(key, { kind: 'release', type: 'MODIFIED', object: object.body });
  }

  /** Stops the tasks of an object being deleted; once all have exited, the object is processed again. */
  private stopForDeletion(key: string, object: ObjectDaemons): void {
    if (object.deletion || !object.running.size) return;
    const running = [...object.running.values()];
    const stops = running.map((spawned) => this.stop(spawned, 'resource deleted', stopForDeletion));
    object.deletion = Promise.all(stops).then(() => {
      object.deletion = undefined;
      if (this.objects.get(key) === object && !this.exiting) this.requeue(key, object);
    });
  }

  private stop(spawned: Spawned, reason: StopReason, how: typeof stopInMemory): Promise<void> {
    return how(spawned, reason, this.proc.settings).catch((error: unknown) => {
      spawned.logger.error(`${spawned.title} could not be stopped: ${thrownText(error)}`, error);
    });
  }
}
