/**
 * A fake apiserver's side of a watch, as the watch tests script it: listings, watch lines and
 * bookmarks of one resource, watch requests answered one by one, and the events as short text.
 */
import type { ServerResponse } from 'node:http';
import type { TestContext } from 'node:test';
import type { StreamEvent } from '../../../../runtime/kube/index.ts';
import type { KubeObject, ResourceDescriptor } from '../../../../runtime/structs/resources.ts';
import { clientOf, startServer } from '../fake-server.ts';
import type { Received } from '../fake-server.ts';

export const Things: ResourceDescriptor = {
  group: 'example.com',
  version: 'v1',
  plural: 'things',
  kind: 'Thing',
  scope: 'Namespaced',
};

export function obj(name: string, rv: string, extra: object = {}): KubeObject {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv }, ...extra };
}
export function listOf(items: KubeObject[], rv: string, cont?: string): object {
  return {
    kind: 'ThingList',
    apiVersion: 'example.com/v1',
    metadata: { resourceVersion: rv, ...(cont ? { continue: cont } : {}) },
    items,
  };
}
export function line(type: string, object: object): string {
  return JSON.stringify({ type, object }) + '\n';
}
export function bookmark(rv: string): string {
  return line('BOOKMARK', { kind: 'Thing', apiVersion: 'example.com/v1', metadata: { resourceVersion: rv } });
}
export function startWatch(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
}

/** Watch requests in arrival order, to be answered by the test. */
export class Arrivals {
  readonly #waiting: ((w: { req: Received; res: ServerResponse }) => void)[] = [];
  readonly #queued: { req: Received; res: ServerResponse }[] = [];
  push(w: { req: Received; res: ServerResponse }): void {
    const next = this.#waiting.shift();
    if (next) next(w); else this.#queued.push(w);
  }
  next(): Promise<{ req: Received; res: ServerResponse }> {
    const queued = this.#queued.shift();
    return queued ? Promise.resolve(queued) : new Promise((resolve) => this.#waiting.push(resolve));
  }
}

/**
 * A server whose listings `list` answers and whose watch requests wait in `watches` for the test to
 * answer; when the test ends, it is closed and the streams' signal is aborted.
 */
export async function watchServer(t: TestContext, list: (req: Received, res: ServerResponse) => void) {
  const watches = new Arrivals();
  const server = await startServer(
    (req, res) => (req.query.get('watch') ? watches.push({ req, res }) : list(req, res))
  );
  t.after(() => server.close());
  const controller = new AbortController();
  t.after(() => controller.abort());
  return { server, watches, controller, signal: controller.signal, client: clientOf(server) };
}

export function describeEvent(e: StreamEvent<KubeObject>): string {
  if (e.type === 'LISTED_DONE' || e.type === 'BOOKMARK') return `${e.type} ${e.resourceVersion}`;
  return `${e.type}${e.type === 'DELETED' && e.synthetic ? '*' : ''} ${e.object.metadata?.name}`;
}

export async function take(it: AsyncIterator<StreamEvent<KubeObject>>, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    out.push(describeEvent(r.value));
  }
  return out;
}
