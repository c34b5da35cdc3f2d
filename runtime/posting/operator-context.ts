/**
 * The operator a piece of code runs for, found without passing it around: handlers call
 * `info(body, {...})` and the event lands in their own operator's queue, even with several
 * operators in one process. The operator enters its context once; the engines enter a narrower
 * one per handler invocation (with the body being handled).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { OperatorSettings } from '../config/settings.ts';
import type { Logger } from '../logging/logger.ts';
import type { KubeObject } from '../structs/resources.ts';
import type { EventPoster } from './poster.ts';

export interface OperatorContext {
  readonly settings: OperatorSettings;
  readonly poster: EventPoster;
  /** The operator's logger, or the object's logger inside a handler. */
  readonly logger?: Logger;
  /** The object being handled, inside a handler (the default owner for hierarchy helpers). */
  readonly body?: KubeObject;
}

const current = new AsyncLocalStorage<OperatorContext>();

/** Runs `fn` (and everything it starts, sync or async) inside the given operator context. */
export function runWithOperatorContext<T>(context: OperatorContext, fn: () => T): T {
  return current.run(context, fn);
}

export function currentOperatorContext(): OperatorContext | undefined {
  return current.getStore();
}

/** The current context, or an error saying where `what` may be called from. */
export function requireOperatorContext(what: string): OperatorContext {
  const context = current.getStore();
  if (context) return context;
  throw new Error(`${what} needs an operator's context: call it from a handler, or inside runWithOperatorContext().`);
}
