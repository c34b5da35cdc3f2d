/**
 * The error a handler throws to refuse a request under review, with the message and the HTTP code
 * the client sees. A webhook request that cannot be reviewed at all is a `WebhookError`
 * (config/admission.ts), as a conversion request's is.
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
