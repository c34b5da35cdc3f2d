/**
 * Peer records as Kopf keeps them in a peering object's status, one per operator identity:
 * `status.<identity> = { priority, lifetime, lastseen }`. A peer is dead once `lastseen + lifetime`
 * has passed, and whoever sees a dead peer removes it. Times are written as Python's `isoformat()`
 * writes them (`2026-11-25T14:20:01.123000+00:00`), so that both runtimes read each other's records.
 */

/** A record as written in the peering object. */
export interface PeerRecord {
  priority: number;
  lifetime: number;
  lastseen: string;
}

export interface Peer {
  identity: string;
  priority: number;
  /** Seconds. */
  lifetime: number;
  /** Epoch milliseconds, and the microseconds below them (kept for the record's text). */
  lastseen: number;
  micros: number;
  /** Epoch milliseconds when the record stops being valid. */
  deadline: number;
}

/** Kopf's default when a record has no lifetime. */
const DEFAULT_LIFETIME = 60;

/** Parses a peering object's status; entries that are not records (a null being deleted) are skipped. */
export function parsePeers(status: unknown, now: number = Date.now()): Peer[] {
  if (!status || typeof status !== 'object') return [];
  const peers: Peer[] = [];
  for (const [identity, value] of Object.entries(status as Record<string, unknown>)) {
    if (!value || typeof value !== 'object') continue;
    const fields = value as { priority?: unknown; lifetime?: unknown; lastseen?: unknown };
    const time = typeof fields.lastseen === 'string' ? parseIsoTime(fields.lastseen) : undefined;
    const lastseen = time?.ms ?? now;
    const lifetime = Math.trunc(Number(fields.lifetime ?? DEFAULT_LIFETIME)) || 0;
    peers.push({
      identity, priority: Math.trunc(Number(fields.priority ?? 0)) || 0, lifetime,
      lastseen, micros: time?.micros ?? (now % 1000) * 1000, deadline: lastseen + lifetime * 1000,
    });
  }
  return peers;
}

export function isDead(peer: Peer, now: number = Date.now()): boolean {
  return peer.deadline <= now;
}

/** Our own record, seen now; a zero lifetime is a record to delete (`null` in the patch). */
export function ownRecord(priority: number, lifetime: number, now: number = Date.now()): PeerRecord | null {
  if (lifetime <= 0) return null;
  return { priority, lifetime, lastseen: isoformat(now, (now % 1000) * 1000) };
}

/** Peers as Kopf's log lines show a list of them: `[<Peer id: priority=0, lifetime=60, lastseen='…'>]`. */
export function describePeers(peers: readonly Peer[]): string {
  return `[${peers.map(describePeer).join(', ')}]`;
}

function describePeer(peer: Peer): string {
  const lastseen = isoformat(peer.lastseen, peer.micros);
  return `<Peer ${peer.identity}: priority=${peer.priority}, lifetime=${peer.lifetime}, lastseen='${lastseen}'>`;
}

/** A UTC time as Python's `datetime.isoformat()` writes it: microseconds unless they are zero, `+00:00`. */
export function isoformat(ms: number, micros: number): string {
  const base = new Date(ms - (ms % 1000)).toISOString().slice(0, 19);
  const fraction = micros ? `.${String(micros).padStart(6, '0')}` : '';
  return `${base}${fraction}+00:00`;
}

/** An ISO-8601 time with any offset and any number of fractional digits. */
export function parseIsoTime(text: string): { ms: number; micros: number } | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(Z|[+-]\d{2}:?\d{2})?$/i.exec(text.trim());
  if (!match) return undefined;
  const [, main, fraction = '', zone = 'Z'] = match;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const seconds = Date.parse(`${main!.replace(' ', 'T')}${offset}`);
  if (Number.isNaN(seconds)) return undefined;
  const micros = Number(fraction.slice(0, 6).padEnd(6, '0'));
  return { ms: seconds + Math.floor(micros / 1000), micros };
}
