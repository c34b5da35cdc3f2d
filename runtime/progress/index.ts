/**
 * The storage layer: what Kopf keeps on the object — handler progress, the diff-base — in
 * Kopf's exact formats, so that a Python and a TypeScript operator can hand objects over.
 */
export {
  AnnotationsProgressStorage,
  DEFAULT_PREFIX,
  DEFAULT_TOUCH_KEY,
  type AnnotationsProgressOptions,
} from './annotations.ts';
export {
  AnnotationsDiffBaseStorage,
  MultiDiffBaseStorage,
  StatusDiffBaseStorage,
  type AnnotationsDiffBaseOptions,
  type StatusDiffBaseOptions,
} from './diffbase.ts';
export { buildEssence, removeAnnotations, removeEmptyStanzas, type Essence, type EssenceOptions } from './essence.ts';
export { hashSuffix, markKey, safeKey, storageKeys, v1Key, v2Key } from './keys.ts';
export { MARKER_NAME, markedPrefixes, storeMarker } from './managed-prefixes.ts';
export {
  checkLimits,
  errorText,
  handlerTitle,
  outcomeOf,
  withOutcome,
  type Attempt,
  type Outcome,
  type OutcomeError,
  type OutcomeLog,
  type RetryPolicy,
} from './outcomes.ts';
export { deliverResult, HandlerStates, storableResult, type StateCounters } from './progression.ts';
export { pythonJson, pythonNumber, pythonRepr, pythonString } from './python.ts';
export { decodeRecord, encodeRecord, RECORD_FIELDS, type ProgressRecord } from './records.ts';
export { MultiProgressStorage, SmartProgressStorage, type SmartProgressOptions } from './smart.ts';
export {
  asActive, freshState, hasChanged, isAwakened, isFinished, isSleeping, recordOf, runtimeOf, sortedIds, stateFromRecord,
  storedRecordOf, withPurpose, type HandlerState,
} from './states.ts';
export {
  namedField,
  NoWriteStatusProgressStorage,
  StatusProgressStorage,
  type StatusProgressOptions,
} from './status.ts';
export { storePurged, type DiffBaseStorage, type ProgressStorage } from './storage.ts';
export { pythonTimedelta, Timestamp, TimestampError } from './timestamps.ts';
export { UnreadableStateError } from './unreadable.ts';
