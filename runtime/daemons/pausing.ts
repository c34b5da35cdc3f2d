/**
 * The operator's pause of its timers and daemons: what peering does when an operator of a higher
 * priority appears (Kopf's "operator pausing"), and undoes when it is gone. The operator owns one
 * `Pausing`; everything that runs per-object tasks joins it.
 *
 *   pause()  → every timer and daemon is told to stop with the reason 'operator pausing' and
 *              stopped with the usual steps (backoff, cancellation, abandonment); none is spawned
 *              while paused. Resolves when all have exited or were abandoned.
 *   resume() → the objects they ran for are processed again with their latest bodies, which
 *              spawns them anew where the filters still match.
 */

/** What can be paused: the per-resource spawners of timers and daemons. */
export interface Pausable {
  pause(): Promise<void>;
  resume(): void;
}

export class Pausing {
  private readonly members = new Set<Pausable>();
  private pausedNow = false;

  get paused(): boolean { return this.pausedNow; }

  /** Adds a member; one that joins while paused is paused at once. Returns its removal. */
  join(member: Pausable): () => void {
    this.members.add(member);
    if (this.pausedNow) void member.pause();
    return () => { this.members.delete(member); };
  }

  /** Pauses every member; resolves when all their tasks have exited or were abandoned. */
  async pause(): Promise<void> {
    this.pausedNow = true;
    await Promise.all([...this.members].map((member) => member.pause()));
  }

  /** Ends the pause: the members spawn their tasks again. Does nothing when not paused. */
  resume(): void {
    if (!this.pausedNow) return;
    this.pausedNow = false;
    for (const member of this.members) member.resume();
  }
}
