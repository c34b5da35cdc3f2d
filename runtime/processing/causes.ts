/**
 * Cause detection: what a watch event means for the object's changing handlers (as Kopf's
 * kopf/_core/intents/causes.py detects it).
 * The order of the checks is the contract: deletion outranks everything, a missing diff-base
 * means the object was never handled, and an unchanged essence is a resume only on first sight.
 */
import type { Reason } from '../registry/contexts.ts';

export type CauseKind = Reason | 'gone' | 'free' | 'noop';

export interface CauseInput {
  /** The watch event type; `null` for objects from a listing. */
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | null;
  deleting: boolean;
  hasFinalizer: boolean;
  /** Whether a diff-base was stored (the object was handled before). */
  hasDiffBase: boolean;
  /** Whether the essence differs from the diff-base. */
  changed: boolean;
  /** First seen by this process through a listing and not yet fully handled once. */
  initial: boolean;
}

export function detectCause(input: CauseInput): CauseKind {
  if (input.type === 'DELETED') return 'gone';
  if (input.deleting && !input.hasFinalizer) return 'free';
  if (input.deleting) return 'delete';
  if (!input.hasDiffBase) return 'create';
  if (!input.changed && input.initial) return 'resume';
  if (!input.changed) return 'noop';
  return 'update';
}

/** The causes that changing handlers serve (as opposed to gone/free/noop). */
export function isReason(kind: CauseKind): kind is Reason {
  return kind === 'create' || kind === 'update' || kind === 'delete' || kind === 'resume';
}

/** How Kopf titles a cause in its log lines ("Creation is in progress: …"). */
export const TITLES: Record<Reason, string> = {
  create: 'Creation',
  update: 'Updating',
  delete: 'Deletion',
  resume: 'Resuming',
};
