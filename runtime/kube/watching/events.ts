/**
 * What one line of a WATCH response stands for: an event, an error the server sent in the stream,
 * or nothing this client knows (skipped); anything else is a malformed stream.
 */
import { ApiError } from '../api-errors.ts';
import type { ApiStatus } from '../api-errors.ts';
import type { StreamEvent, WatchEventType } from '../types.ts';
import type { KubeObject } from '../../structs/resources.ts';
import { MalformedStreamError } from './reader.ts';

type RawEvent = { type: string; object: unknown };

/** An event of a WATCH request (not of a listing). */
export type WatchEvent<T extends KubeObject> = Extract<StreamEvent<T>, { type: WatchEventType }>;

/** The event a line stands for; `undefined` for types this client does not know (skipped, as Kopf does). */
export function toEvent<T extends KubeObject>(raw: unknown, path: string): WatchEvent<T> | undefined {
  if (!raw || typeof raw !== 'object' || typeof (raw as RawEvent).type !== 'string')
    throw new MalformedStreamError(JSON.stringify(raw)?.slice(0, 200) ?? String(raw));
  const { type, object } = raw as RawEvent;
  if (!object || typeof object !== 'object') throw new MalformedStreamError(`${type} without an object`);
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return { type, object: object as T };
    case 'BOOKMARK':
      return { type, resourceVersion: (object as KubeObject).metadata?.resourceVersion ?? '' };
    case 'ERROR': {
      const status = object as ApiStatus;
      throw new ApiError({ status: status.code ?? 500, method: 'WATCH', path, body: { kind: 'Status', ...status } });
    }
    default:
      return undefined;
  }
}
