/**
 * Consistent hashing: each member has many points (virtual nodes) on a circle of 2^32 positions,
 * and a key belongs to the member of the first point at or after the key's own position. A member
 * that joins takes about a 1/n share from each of the others, and one that leaves gives its share
 * to the others in about equal parts: nothing else moves. The many points per member even out the
 * shares (with one point each, a member's arc could be most of the circle).
 */
import { createHash } from 'node:crypto';

/** Points per member: enough for every share to be near fair (within a few percent at this count). */
export const VIRTUAL_NODES = 256;

/** A key's position on the circle: the first 32 bits of its SHA-256 (stable across processes and versions). */
export function positionOf(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0);
}

export class HashRing {
  /** The points, by position; `owners[i]` is the member of `positions[i]`. */
  readonly #positions: Uint32Array;
  readonly #owners: string[];
  readonly members: ReadonlySet<string>;

  constructor(members: Iterable<string>, virtualNodes = VIRTUAL_NODES) {
    this.members = new Set(members);
    const points: [number, string][] = [];
    for (const member of this.members) {
      for (let i = 0; i < virtualNodes; i++) points.push([positionOf(`${member}#${i}`), member]);
    }
    // Two points at one position (rare): the member named first wins, the same in every process.
    points.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    this.#positions = Uint32Array.from(points, ([position]) => position);
    this.#owners = points.map(([, member]) => member);
  }

  /** The member owning a position (of `positionOf`); undefined for an empty ring. */
  ownerAt(position: number): string | undefined {
    const positions = this.#positions;
    if (!positions.length) return undefined;
    let low = 0, high = positions.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (positions[middle] < position) low = middle + 1; else high = middle;
    }
    return this.#owners[low === positions.length ? 0 : low];
  }

  owner(key: string): string | undefined {
    return this.ownerAt(positionOf(key));
  }
}
