/**
 * API requests as the apiserver counts them (`apiserver_request_total` on /metrics): what an
 * operator writes, measured at the server, whatever client it uses.
 */
import { sendRequest } from '../../runtime/testing/controlplane/requests.ts';
import type { ApiCredentials } from '../../runtime/testing.ts';

/** Request counts by `verb code subresource` for one resource. */
export type RequestCounts = Map<string, number>;

export async function requestCounts(credentials: ApiCredentials, resource: string): Promise<RequestCounts> {
  const response = await sendRequest(credentials, 'GET', '/metrics', { timeoutMs: 30_000 });
  if (response.status !== 200) throw new Error(`GET /metrics: HTTP ${response.status}: ${response.text.slice(0, 200)}`);
  const counts: RequestCounts = new Map();
  for (const line of response.text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (labels.resource !== resource) continue;
    const key = `${labels.verb} ${labels.code} ${labels.subresource ?? ''}`.trim();
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** Requests between two snapshots whose verb is one of `verbs`, and how many of them were refused with a conflict. */
export function delta(before: RequestCounts, after: RequestCounts, verbs: readonly string[]): {
  total: number;
  conflicts: number
} {
  let total = 0;
  let conflicts = 0;
  for (const [key, value] of after) {
    const [verb, code] = key.split(' ');
    if (!verbs.includes(verb!)) continue;
    const n = value - (before.get(key) ?? 0);
    total += n;
    if (code === '409' || code === '422') conflicts += n;
  }
  return { total, conflicts };
}
