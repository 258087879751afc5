// The one place that turns an error into the SPEC.md "Errors" envelope.
import type { Logger } from 'pino';
import { ApiError, ERRORS } from '../errors/registry.js';
import { isDatabaseUnavailable } from '../storage/db.js';

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
    if (err.details !== undefined) payload.details = err.details;
    return { status: err.status, body: JSON.stringify(payload), headers: err.headers };
  }
  if (isDatabaseUnavailable(err)) {
    // The database is unreachable: a transient fault the client may retry, not a bug.
    log.warn({ err, request_id: requestId }, 'database unavailable');
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
