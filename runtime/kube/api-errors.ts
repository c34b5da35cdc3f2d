/**
 * Errors of the API layer. Every HTTP failure is an `ApiError`, carrying the fields of the
 * `v1.Status` the server sent, so callers can branch on `reason`/`status` (or the `is…` helpers);
 * the failures handlers meet most have a subclass of their own, whose message says what to do
 * (`NotFoundError`, `ConflictError`, `ForbiddenError` and its `AuthorizationError`, …). Failures
 * below HTTP (refused connections, resets, timeouts) surface as `ApiConnectionError` once the
 * retries are spent; a watch that cannot be restored throws `WatchError`.
 */
import { thrownText } from '../structs/errors.ts';

/** The cause of a failure as the API server describes it (`metav1.StatusCause`). */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** `v1.Status`: what the API server returns for failures and for some deletions. */
export interface ApiStatus {
  kind?: 'Status';
  apiVersion?: string;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: StatusDetails;
  metadata?: { resourceVersion?: string; continue?: string };
}

export class ApiError extends Error {
  /** The HTTP status of the response (or the `code` of an in-stream watch error). */
  readonly status: number;
  /** `Status.reason`: `NotFound`, `Conflict`, `AlreadyExists`, `Expired`, `Invalid`, …; `''` if none was sent. */
  readonly reason: string;
  /** `Status.code`; equals `status` unless the server said otherwise. */
  readonly code: number;
  readonly details?: StatusDetails;
  /** The parsed `v1.Status`, when the body was one. */
  readonly body?: ApiStatus;
  readonly method: string;
  readonly path: string;
  /** Seconds the server asked to wait before retrying (`Retry-After` or `details.retryAfterSeconds`). */
  readonly retryAfter?: number;

  constructor(init: ApiErrorInit) {
    const reason = init.body?.reason ?? '';
    const message = init.body?.message ?? (init.text?.trim().slice(0, 500) || `HTTP ${init.status}`);
    super(`${init.method} ${init.path}: ${init.status}${reason ? ` ${reason}` : ''}: ${message}`);
    this.name = 'ApiError';
    this.status = init.status;
    this.reason = reason;
    this.code = init.body?.code ?? init.status;
    this.details = init.body?.details;
    this.body = init.body;
    this.method = init.method;
    this.path = init.path;
    this.retryAfter = init.retryAfter ?? init.body?.details?.retryAfterSeconds;
  }
}

export interface ApiErrorInit {
  status: number;
  method: string;
  path: string;
  body?: ApiStatus;
  text?: string;
  retryAfter?: number;
  /** The Kubernetes verb of the request (`get`, `list`, `patch`, …), for the messages of refusals. */
  verb?: string;
}

/** 404: the object (or the resource, or its namespace) is not there. */
export class NotFoundError extends ApiError {
  constructor(init: ApiErrorInit) { super(init); this.name = 'NotFoundError'; }
}

/** 409 AlreadyExists: an object of that name exists already (on creation). */
export class AlreadyExistsError extends ApiError {
  constructor(init: ApiErrorInit) { super(init); this.name = 'AlreadyExistsError'; }
}

/** 409 otherwise: a stale `resourceVersion` or a failed precondition; read the object again and retry. */
export class ConflictError extends ApiError {
  constructor(init: ApiErrorInit) { super(init); this.name = 'ConflictError'; }
}

/** 422: the object or the patch is invalid (the schema, an immutable field, a bad name). */
export class InvalidError extends ApiError {
  constructor(init: ApiErrorInit) { super(init); this.name = 'InvalidError'; }
}

/**
 * 403: the API server refused the request. Two kinds of refusal come as 403, with different cures:
 * an authorization denial (the operator's RBAC does not allow it: an `AuthorizationError`), and a
 * refusal by an admission check, whoever asks (a quota, a policy, a webhook, a namespace being
 * deleted, a volume that cannot be resized: a plain `ForbiddenError`, whose message says that more
 * permissions would not help). Both carry the verb and the resource of the request.
 */
export class ForbiddenError extends ApiError {
  /** The verb refused (`create`, `patch`, …). */
  readonly verb: string;
  /** The resource as RBAC names it (`configmaps`, `pods/status`), and its API group (`''` for the core group). */
  readonly resource: string;
  readonly group: string;

  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ForbiddenError';
    const target = rbacTargetOf(init.path);
    this.verb = init.verb ?? init.method.toLowerCase();
    this.resource = target.resource;
    this.group = target.group;
    if (init.body?.message && !isAuthorizationDenial(init.body)) {
      this.message += ' (refused by the API server\'s admission checks, not by the RBAC: ' +
        'more permissions would not help)';
    }
  }
}

/**
 * 403 from authorization: the operator's credentials may not do this. The message names the verb
 * and the resource, and where to grant it: the RBAC of the operator's service account.
 */
export class AuthorizationError extends ForbiddenError {
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'AuthorizationError';
    const group = this.group ? ` in the API group '${this.group}'` : ' in the core API group';
    const what = this.resource ? `${this.resource}${group}` : `the path ${init.path.split('?')[0]}`;
    this.message += ` (the operator is not allowed to '${this.verb}' ${what}: ` +
      'grant it in the RBAC of its service account; see `kopf rbac`)';
  }
}

/**
 * Whether a 403's status is the authorizer's: its message is `<resource> "<name>" is forbidden:
 * User "…" cannot <verb> …` (the name, or the whole prefix, absent for a collection or a path), where
 * an admission plugin's says why without naming the user. The pattern cannot backtrack far.
 */
function isAuthorizationDenial(status: ApiStatus | undefined): boolean {
  return /^(?:[^" ]+(?: "[^"]*")? is )?forbidden: User "(?:[^"\\]|\\.)*" cannot /.test(status?.message ?? '');
}

/** The API error for a failed response: a class of its own for the failures callers handle most. */
export function apiErrorOf(init: ApiErrorInit): ApiError {
  const reason = init.body?.reason;
  switch (init.status) {
    case 404: return new NotFoundError(init);
    case 409: return reason === 'AlreadyExists' ? new AlreadyExistsError(init) : new ConflictError(init);
    case 403: return isAuthorizationDenial(init.body) ? new AuthorizationError(init) : new ForbiddenError(init);
    case 422: return new InvalidError(init);
    default: return new ApiError(init);
  }
}

/** The resource (with its subresource) and the API group a request path is about, as RBAC names them. */
export function rbacTargetOf(path: string): { group: string; resource: string } {
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  if (parts[0] !== 'api' && parts[0] !== 'apis') return { group: '', resource: '' }; // a path such as /version
  // /api/v1/… or /apis/<group>/<version>/…
  const group = parts[0] === 'apis' ? parts[1] ?? '' : '';
  let rest = parts.slice(parts[0] === 'apis' ? 3 : 2);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [plural = '', , subresource] = rest;
  return { group, resource: subresource ? `${plural}/${subresource}` : plural };
}

/** The server could not be reached or did not answer in time, after all retries. */
export class ApiConnectionError extends Error {
  readonly method: string;
  readonly path: string;
  constructor(method: string, path: string, cause: unknown, hint?: string) {
    super(`${method} ${path}: ${thrownText(cause)}${hint ? ` (${hint})` : ''}`, { cause });
    this.name = 'ApiConnectionError';
    this.method = method;
    this.path = path;
  }
}

/** OpenSSL's and Node's codes for a server certificate that is not trusted or not for this host. */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE',
]);
const EXPIRED = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/**
 * What to check when the server's certificate was refused: these are configuration mistakes,
 * not outages, so they fail at once (no retries) and say where to look; `undefined` otherwise.
 */
export function certificateProblem(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (UNTRUSTED.has(code))
    return "the server's certificate is not signed by a trusted authority: does the kubeconfig give the cluster's " +
      "certificate-authority(-data)?";
  if (EXPIRED.has(code)) return "the server's certificate is out of its validity period: check the clocks, or renew it";
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return "the server's certificate is not for this address: check the cluster's server URL, or its tls-server-name";
  return undefined;
}

/** Whether the error, or the error it wraps (a `WatchError` wraps the listing's), passes the test. */
export function isOrWraps(e: unknown, test: (e: unknown) => boolean): boolean {
  return test(e) || (e instanceof Error && test(e.cause));
}

/** A watch stream that could not be restored within its retry budget. */
export class WatchError extends Error {
  constructor(message: string, cause: unknown) {
    super(`${message}: ${thrownText(cause)}`, { cause });
    this.name = 'WatchError';
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

export function isNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.status === 404;
}

/** A write lost a race: a stale `resourceVersion` or a failed precondition (409 other than AlreadyExists). */
export function isConflict(e: unknown): boolean {
  return e instanceof ApiError && e.status === 409 && e.reason !== 'AlreadyExists';
}

export function isAlreadyExists(e: unknown): boolean {
  return e instanceof ApiError && e.status === 409 && e.reason === 'AlreadyExists';
}

/** The resourceVersion or continue token is too old (compacted): re-list. */
export function isGone(e: unknown): boolean {
  return e instanceof ApiError && (e.status === 410 || e.reason === 'Expired' || e.reason === 'Gone');
}

export function isForbidden(e: unknown): boolean {
  return e instanceof ApiError && e.status === 403;
}

export function isUnauthorized(e: unknown): boolean {
  return e instanceof ApiError && e.status === 401;
}

/** The object failed validation (422), e.g. a patch that violates the schema. */
export function isInvalid(e: unknown): boolean {
  return e instanceof ApiError && e.status === 422;
}

export function isTooManyRequests(e: unknown): boolean {
  return e instanceof ApiError && e.status === 429;
}

/** Worth retrying: throttling, server-side failures, and failures below HTTP. */
export function isRetryable(e: unknown): boolean {
  if (e instanceof ApiError) return e.status === 429 || (e.status >= 500 && e.status !== 501);
  return e instanceof ApiConnectionError || isNetworkError(e);
}

const NETWORK_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'ENOTFOUND', 'EAI_AGAIN', 'ERR_STREAM_PREMATURE_CLOSE', 'UND_ERR_SOCKET', 'EPROTO',
]);

/** An error from the socket or TLS level (not an HTTP status). */
export function isNetworkError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e.name === 'TimeoutError') return true;
  const code = (e as { code?: unknown }).code;
  return (typeof code === 'string' && NETWORK_CODES.has(code)) || e.message === 'socket hang up';
}
