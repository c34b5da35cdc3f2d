/**
 * What an API server's response means to the client: its body as JSON, whether it succeeded, and
 * a failure as an `ApiError` with the fields of the `v1.Status` it sent, if any.
 */
import { parseRetryAfter } from './backoff.ts';
import { apiErrorOf, type ApiError, type ApiStatus } from './api-errors.ts';
import type { BufferedResponse, StreamedResponse } from './transport.ts';
import type { Verb } from './types.ts';

/** A response body as JSON; `undefined` if it is empty. */
export function jsonBody(body: Buffer): unknown {
  return body.length ? JSON.parse(body.toString('utf8')) : undefined;
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** A failed response as an `ApiError` with the fields of its `v1.Status`, if it sent one. */
export function errorOf(response: BufferedResponse, method: string, path: string, verb: Verb): ApiError {
  const retryAfter = parseRetryAfter(response.headers['retry-after']);
  const text = response.body.toString('utf8');
  return apiErrorOf({ status: response.status, method, path, body: parseStatus(text), text, retryAfter, verb });
}

/** The rest of a streamed response, for its error; a body cut short adds nothing reliable. */
export async function readAll(response: StreamedResponse): Promise<BufferedResponse> {
  let body = Buffer.alloc(0);
  try {
    body = Buffer.concat(await response.body.toArray() as Buffer[]);
  } catch {
    // The status line says enough.
  }
  return { status: response.status, headers: response.headers, body };
}

function parseStatus(text: string): ApiStatus | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && (parsed as ApiStatus).kind === 'Status') return parsed as ApiStatus;
  } catch {
    // Not JSON (a proxy's HTML page, plain text from the server): the raw text goes into the message.
  }
  return undefined;
}
