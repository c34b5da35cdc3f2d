/**
 * The last resort of a process that runs an operator. A promise rejected with no handler, or an
 * exception thrown with no one to catch it, is a bug — in the operator's code or in the framework
 * — and Node ends the process for it, with a trace on stderr and nothing in the operator's log: a
 * webhook on the cluster's write path then refuses every request until someone restarts it.
 *
 * Guarded, the process says it in the operator's log, with the stack, and:
 * - after an unhandled rejection, goes on: one forgotten promise is no reason to stop serving;
 * - after an uncaught exception, stops the operator gracefully (cleaning up its webhook
 *   configurations, releasing its Lease): whatever threw left its work half done, and Node's
 *   advice is not to go on as if nothing happened.
 *
 * These are process-wide listeners, and the process belongs to whoever runs it: `kopf run` installs
 * them; an application that embeds operators decides for itself (docs/embedding.md).
 */
import type { Logger } from '../logging/index.ts';
import { thrownText } from '../structs/errors.ts';

/**
 * Installs the guard; `stop` is called with an uncaught exception (maybe more than once). Returns
 * the function that removes it.
 */
export function guardProcess(logger: Logger, stop: (error: unknown) => void): () => void {
  const rejected = (reason: unknown): void => {
    const what = 'A promise was rejected and nothing handled it (a bug); the operator goes on';
    said(() => logger.error(`${what}: ${thrownText(reason)}`, reason), reason);
  };
  const thrown = (error: unknown): void => {
    const what = 'An exception was thrown and nothing caught it (a bug); the operator stops';
    said(() => logger.critical(`${what}: ${thrownText(error)}`, error), error);
    said(() => stop(error), error);
  };
  process.on('unhandledRejection', rejected);
  process.on('uncaughtException', thrown);
  return () => {
    process.off('unhandledRejection', rejected);
    process.off('uncaughtException', thrown);
  };
}

/** A listener of these events must not throw itself (Node would exit at once): a failing log goes to stderr. */
function said(action: () => void, cause: unknown): void {
  try {
    action();
  } catch (error) {
    process.stderr.write(`kopf: ${thrownText(cause)}\n(and while saying so: ${thrownText(error)})\n`);
  }
}
