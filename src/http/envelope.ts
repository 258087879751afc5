// The one place that turns an error into the SPEC.md "Errors" envelope.
import type { Logger } from 'pino';
import { ApiError, ERRORS, type ErrorDetail } from '../errors/registry.js';
import { isDatabaseUnavailable, isTransientConflict } from '../storage/unavailable.js';

export interface Envelope {
  status: number;
  body: string;
  headers: Readonly<Record<string, string>> | undefined;
}

export function errorEnvelope(err: unknown, requestId: string, log: Logger): Envelope {
  if (err instanceof ApiError) {
    const payload: Record<string, unknown> = {
      error: err.code,
      message: err.message,
      status: err.status,
      request_id: requestId,
    };
    if (err.details !== undefined) {
      // `details` as SPEC.md has it ({field, message}); `errors` beside it adds each one's code.
      payload.details = err.details.map(detailOf);
      payload.errors = err.details.map(fieldErrorOf);
    }
    // A 503 always says when to come back.
    const headers =
      err.status === 503 && err.headers?.['retry-after'] === undefined
        ? { ...err.headers, 'retry-after': '1' }
        : err.headers;
    return { status: err.status, body: JSON.stringify(payload), headers };
  }
  // Transient faults the client may retry, not bugs: the database unreachable, or a deadlock or
  // serialization failure with another transaction (rolled back).
  const transient = isDatabaseUnavailable(err)
    ? 'database unavailable'
    : isTransientConflict(err)
      ? 'transaction conflict'
      : null;
  if (transient !== null) {
    log.warn({ err, request_id: requestId }, transient);
    return errorEnvelope(
      new ApiError('service_unavailable', undefined, { headers: { 'retry-after': '1' } }),
      requestId,
      log,
    );
  }
  log.error({ err, request_id: requestId }, 'unhandled error');
  const e = ERRORS.internal_error;
  return {
    status: e.status,
    body: JSON.stringify({ error: 'internal_error', message: e.message, status: e.status, request_id: requestId }),
    headers: undefined,
  };
}

function detailOf(d: ErrorDetail): { field: string; message: string } {
  return { field: d.field, message: d.message };
}

function fieldErrorOf(d: ErrorDetail): { field: string; code: string; message: string } {
  return { field: d.field, code: d.code ?? 'invalid', message: d.message };
}
