/**
 * One KopfExample as kube-apiserver keeps it, behind a fake API server's handler: merge-patches of
 * the object and of its status subresource, JSON patches with their tests, a new resourceVersion
 * per write, and the object gone once it is deleted and has no finalizers left.
 */
import type { ServerResponse } from 'node:http';
import { copyJson } from '../../../runtime/structs/diffs.ts';
import { applyMergePatch, type JsonPatchOp } from '../../../runtime/structs/patches.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import { sendJson, status, type Received } from '../kube/fake-server.ts';
import { applyJsonPatch } from '../structs/json-patch.ts';

type Json = { [key: string]: unknown };

/** The object, and a process that dies at a write (`limit`): the writes after it are refused. */
export class FakeApi {
  object: Json | undefined;
  /** The writes that reached the object, in order: `object` or `status`, and the patch's type. */
  readonly writes: string[] = [];
  /** How many writes get through before the process is dead (and the rest are refused). */
  limit = Infinity;
  refused = 0;
  /** What the handlers had done when the object lost our finalizer. */
  releasedAfter: string[] | undefined;
  private version = 1;
  private readonly done: string[];

  constructor(object: KubeObject, done: string[]) {
    this.object = copyJson(object) as Json;
    this.done = done;
  }

  handle(req: Received, res: ServerResponse): void {
    if (req.method !== 'PATCH') return sendJson(res, 405, status(405, 'MethodNotAllowed', req.method));
    if (this.writes.length >= this.limit) {
      this.refused++;
      return sendJson(res, 503, status(503, 'ServiceUnavailable', 'the process is dead'));
    }
    if (!this.object) return sendJson(res, 404, status(404, 'NotFound', 'gone'));
    const endpoint = req.path.endsWith('/status') ? 'status' : 'object';
    const patch = JSON.parse(req.body) as unknown;
    if (req.headers['content-type'] === 'application/merge-patch+json') {
      const { status: statusPart, ...rest } = patch as Json;
      applyMergePatch(this.object, endpoint === 'status' ? { status: statusPart } : rest);
    } else {
      try {
        this.object = applyJsonPatch(this.object, patch as JsonPatchOp[]) as Json;
      } catch (error) {
        return sendJson(res, 422, status(422, 'Invalid', String(error)));
      }
    }
    this.writes.push(
      `${endpoint}:${req.headers['content-type'] === 'application/merge-patch+json' ? 'merge' : 'json'}`
    );
    applyMergePatch(this.object, { metadata: { resourceVersion: String(++this.version) } });
    const answer = copyJson(this.object);
    const meta = this.object.metadata as KubeObject['metadata'];
    if (meta?.deletionTimestamp && !meta.finalizers?.length) {
      this.releasedAfter = [...this.done];
      this.object = undefined;
    }
    sendJson(res, 200, answer);
  }
}
