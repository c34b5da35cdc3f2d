/**
 * The object's stored state as one cycle sees it: handler progress (read lazily from the
 * progress storage, written back into the patch) and the diff-base with the current essence.
 * The storages decide the wire format (Kopf's annotations); this file only translates records
 * into the engine's handler states and back.
 */
import type { OperatorSettings } from '../config/settings.ts';
import type { Logger } from '../logging/index.ts';
import type { Patch } from '../structs/patches.ts';
import type { Diff } from '../structs/diffs.ts';
import type { KubeObject } from '../structs/resources.ts';
import type { ChangingHandler } from '../registry/handlers.ts';
import type { Reason } from '../registry/contexts.ts';
import type { StateBook } from '../handling/running.ts';
import {
  hasChanged, isFinished, recordOf, stateFromRecord, storePurged,
  type Essence, type HandlerState, Timestamp,
} from '../progress/index.ts';
import { TITLES } from './causes.ts';

export class ObjectState {
  readonly book: StateBook;
  private readonly states = new Map<string, HandlerState | undefined>();
  private readonly dirty = new Set<string>();
  private readonly settings: OperatorSettings;
  private readonly body: KubeObject;
  private readonly extra: string[][];

  /** When the records were read: taken at the first read (most events read none). */
  private now: Timestamp | undefined;

  constructor(settings: OperatorSettings, body: KubeObject, extraFields: string[][]) {
    this.settings = settings;
    this.body = body;
    this.extra = extraFields;
    this.book = {
      get: (id) => this.load(id),
      set: (id, state) => { this.states.set(id, state); this.dirty.add(id); },
    };
  }

  /** The last handled essence; `undefined` if the object was never handled. */
  diffBase(): Essence | undefined {
    return this.settings.persistence.diffbaseStorage.fetch(this.body) ?? undefined;
  }

  /** The essence of the object now: what handlers react to. */
  essence(): Essence {
    const essence = this.settings.persistence.diffbaseStorage.build(this.body, this.extra);
    return this.settings.persistence.progressStorage.clear(essence);
  }

  /**
   * Stores the essence as the new diff-base, only if it differs from the stored one (a resume must
   * write nothing): as Kopf's `old != new`, where the diff that the cause was detected by has no item.
   */
  storeDiffBase(change: { old: Essence | undefined; current: Essence; diff: Diff }, patch: Patch<KubeObject>): void {
    if (change.old !== undefined && !change.diff.length) return;
    this.settings.persistence.diffbaseStorage.store(this.body, patch, change.current);
  }

  /** Whether any of these handlers has a progress record stored on the object. */
  recorded(handlers: readonly ChangingHandler[]): boolean {
    return handlers.some((h) => this.load(h.id) !== undefined);
  }

  /** States left from another cause (e.g. creation interrupted by an update) are purged. */
  supersede(
    reason: Reason,
    handlers: readonly ChangingHandler[],
    logger: Logger,
    patch: Patch<KubeObject>,
  ): void {
    const stale = handlers.filter((h) => {
      const state = this.load(h.id);
      return state !== undefined && state.purpose !== null && state.purpose !== reason;
    });
    if (!stale.length) return;
    const byPurpose = new Map<string, ChangingHandler[]>();
    for (const h of stale) {
      const purpose = this.load(h.id)!.purpose!;
      byPurpose.set(purpose, [...(byPurpose.get(purpose) ?? []), h]);
    }
    for (const [purpose, group] of byPurpose) {
      const succeeded = group.filter((h) => this.load(h.id)?.success).length;
      const failed = group.filter((h) => this.load(h.id)?.failure).length;
      const left = group.filter((h) => !isFinished(this.load(h.id)!)).length;
      const superseded = TITLES[purpose as Reason] ?? purpose;
      const by = TITLES[reason].toLowerCase();
      const counts = `${succeeded} succeeded; ${failed} failed; ${left} left to the moment`;
      logger.info(`${superseded} is superseded by ${by}: ${counts}.`);
    }
    this.purgeIds(stale.map((h) => h.id), patch);
  }

  /**
   * Writes the changed states into the patch. When the cycle is done (`done`: the resource's
   * changing handlers), their states and their sub-handlers' are then purged (Kopf's order); the
   * storage is told which records it stores only to purge, so that it need not write them.
   * The states are left as they are: the records can be written again into another patch, without
   * the purge, when the diff-base that the purge must come with cannot be stored.
   */
  writeStates(patch: Patch<KubeObject>, done?: readonly ChangingHandler[]): void {
    const storage = this.settings.persistence.progressStorage;
    const purged = done ? this.idsOf(done) : undefined;
    for (const id of this.dirty) {
      const state = this.states.get(id);
      if (!state || !hasChanged(state)) continue;
      if (purged?.has(id)) storePurged(storage, id, recordOf(state), this.body, patch);
      else storage.store(id, recordOf(state), this.body, patch);
    }
    storage.flush();
    if (!purged) return;
    for (const id of purged) storage.purge(id, this.body, patch);
    storage.flush();
  }

  /** The handlers' ids and their sub-handlers'. */
  private idsOf(handlers: readonly ChangingHandler[]): Set<string> {
    const ids = new Set<string>();
    for (const h of handlers) {
      ids.add(h.id);
      for (const ref of this.load(h.id)?.subrefs ?? []) ids.add(ref);
    }
    return ids;
  }

  private purgeIds(ids: readonly string[], patch: Patch<KubeObject>): void {
    const storage = this.settings.persistence.progressStorage;
    for (const id of ids) {
      storage.purge(id, this.body, patch);
      this.states.set(id, undefined);
      this.dirty.delete(id);
    }
  }

  private load(id: string): HandlerState | undefined {
    if (!this.states.has(id)) {
      const record = this.settings.persistence.progressStorage.fetch(id, this.body);
      this.states.set(id, record ? stateFromRecord(record, this.now ??= Timestamp.now()) : undefined);
    }
    return this.states.get(id);
  }
}
