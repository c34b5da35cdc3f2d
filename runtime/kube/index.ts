/**
 * The API layer's public face: the only module the engines above import from `runtime/kube/`.
 */
export { KubeClient, DEFAULT_CLIENT_SETTINGS } from './client.ts';
export type { ClientSettings, KubeClientOptions, RequestTrace, RetryNotice } from './client.ts';
export { CachedCredentials, KubeConfigError, staticCredentials } from './credentials/credentials.ts';
export type { CredentialSource, Credentials, TlsMaterial } from './credentials/credentials.ts';
export { kubeConfigCredentials } from './credentials/kubeconfig.ts';
export { connectionOf, credentialsOf, type ConnectionInfo } from './credentials/connection-info.ts';
export { LoginError, Vault, type LoginResults } from './credentials/vault.ts';
export { isolatedDefaultCredentials } from './credentials/isolated.ts';
export type { KubeConfigCredentialsOptions } from './credentials/kubeconfig.ts';
export { Discovery } from './discovery/discovery.ts';
export type { ApiGroupInfo, DiscoveredResource } from './discovery/discovery.ts';
export { UnresolvedResourceError, missingVerbs, parseSelector, resolveResource } from './discovery/resolve.ts';
export type { ResourceSelector } from './discovery/resolve.ts';
export {
  AlreadyExistsError, ApiConnectionError, ApiError, AuthorizationError, ConflictError, ForbiddenError, InvalidError,
  NotFoundError, WatchError,
  apiErrorOf, rbacTargetOf, isAlreadyExists, isApiError, isConflict, isForbidden, isGone, isOrWraps,
  isInvalid, isNetworkError, isNotFound, isRetryable, isTooManyRequests, isUnauthorized,
} from './api-errors.ts';
export type { ApiErrorInit, ApiStatus, StatusCause, StatusDetails } from './api-errors.ts';
export { listObjects, listPages } from './listing.ts';
export type { ListOptions, ListPage } from './listing.ts';
export { createObject, deleteObject, getObject, patchObject, patchObjectVersion, replaceObject } from './objects.ts';
export type { DeleteOptions, PatchOptions, ReadOptions, WriteOptions } from './objects.ts';
export type { BufferedResponse, ResponseHead, StreamedResponse } from './transport.ts';
export type {
  ApplyPatch,
  JsonPatchOp,
  ListResult,
  ObjectRef,
  PatchType,
  RequestOptions,
  StreamEvent,
  Verb,
  WatchEventType,
} from './types.ts';
export { keyOf, watchStream } from './watching/stream.ts';
export type { WatchOptions } from './watching/stream.ts';
export { WatchFreshness, type StreamLiveness } from './watching/freshness.ts';
export { DEFAULT_FIELD_MANAGER, ResourceClient, resourceClientOf } from './resourceclient.ts';
export type {
  ApplyOptions,
  CreateOptions,
  DeleteObjectOptions,
  GetOptions,
  JsonPatchOptions,
  ListObjectsOptions,
  MergePatchOptions,
  StatusPart,
  Where,
} from './resourceclient.ts';
