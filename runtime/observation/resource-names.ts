/**
 * How the metrics name a resource: `plural.version.group`, and `plural.version` for the core
 * group (`pods.v1`, `kopfexamples.v1.kopf.dev`) — one form for the handlers, the queues, the watch
 * streams and the API requests, so that their series can be joined.
 */

interface Named {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

const labels = new WeakMap<Named, string>();

/** The resource's label; computed once per descriptor, as it is asked for on every handler run. */
export function resourceLabel(resource: Named): string {
  let label = labels.get(resource);
  if (label === undefined) {
    const { group, version, plural } = resource;
    label = group ? `${plural}.${version}.${group}` : `${plural}.${version}`;
    labels.set(resource, label);
  }
  return label;
}

/**
 * The resource an API path names (`/apis/G/V/namespaces/N/PLURAL/NAME/status` → `PLURAL.V.G`),
 * or `''` for paths that name none (`/api`, `/apis/G/V`, `/version`). Never an object's name: the
 * label stays bounded by the resources the operator touches.
 */
export function pathResource(path: string): string {
  const parts = path.split('/');
  // ['', 'api', V, …] or ['', 'apis', G, V, …]
  let at: number, group: string;
  if (parts[1] === 'api') { at = 3; group = ''; }
  else if (parts[1] === 'apis' && parts.length > 3) { at = 4; group = parts[2]!; }
  else return '';
  const version = parts[at - 1];
  // namespaces/N/PLURAL… names PLURAL; a bare `namespaces` or `namespaces/N` names the namespaces.
  const plural = parts[at] === 'namespaces' && parts.length > at + 2 ? parts[at + 2] : parts[at];
  if (!version || !plural) return '';
  return group ? `${plural}.${version}.${group}` : `${plural}.${version}`;
}
