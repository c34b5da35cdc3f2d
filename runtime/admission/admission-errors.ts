/**
 * Errors of admission: those a handler throws to refuse a request (with the message and the HTTP
 * code the client sees), and those of a webhook request that cannot be reviewed at all.
 */
import { PermanentError } from '../structs/errors.ts';

/** Refuses the request under review with this message and code (500 by default, as in Kopf). */
export class AdmissionError extends PermanentError {
  readonly code: number;
  constructor(message = '', code = 500) {
    super(message);
    this.name = 'AdmissionError';
    this.code = code;
  }
}

/**
 * The webhook request itself is bad (not the API request under review): it is answered with this
 * HTTP status, and the API server applies the webhook's failure policy.
 */
export class WebhookError extends Error {
  readonly status: number;
  constructor(message: string, status = 400) {
    super(message);
    this.name = 'WebhookError';
    this.status = status;
  }
}
