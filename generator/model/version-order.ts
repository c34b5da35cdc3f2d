/**
 * Kubernetes version priority, as `kubectl` and discovery order CRD versions: GA before beta
 * before alpha, higher numbers first; names that do not look like versions last, alphabetically.
 */
const VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function weight(name: string): [number, number, number] {
  const m = VERSION.exec(name);
  if (!m) return [0, 0, 0];
  const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  return [stability, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
}

/** Negative when `a` comes first (has the higher priority). */
export function compareVersions(a: string, b: string): number {
  const [sa, ma, na] = weight(a);
  const [sb, mb, nb] = weight(b);
  if (sa !== sb) return sb - sa;
  if (sa === 0) return a < b ? -1 : a > b ? 1 : 0;
  if (ma !== mb) return mb - ma;
  return nb - na;
}
