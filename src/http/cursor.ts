// Opaque page cursors over (created_at with microseconds, id), newest first: base64url of
// "<timestamp>|<id>". A cursor is client input like any other: one whose timestamp is not a real
// instant (month 99, year 0000) passed the shape check and reached PostgreSQL's ::timestamptz
// cast, a 500 (503 on the authorization log) instead of 422 invalid_cursor.
import { ApiError } from '../errors/registry.js';
import { isRepresentableDateTime } from '../validation/date-time.js';

const SHAPE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([a-z]{3,4}_[A-Za-z0-9]{1,64})$/;

export function encodeCursor(ts: string, id: string): string {
  return Buffer.from(`${ts}|${id}`, 'utf8').toString('base64url');
}

/** The cursor's timestamp and id (an id of `idPrefix`, e.g. "auth_"), or 422 invalid_cursor. */
export function decodeCursor(cursor: string, idPrefix: string): { ts: string; id: string } {
  const m = SHAPE.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const ts = m?.[1];
  const id = m?.[2];
  if (ts === undefined || id === undefined || !id.startsWith(idPrefix) || !isRepresentableDateTime(ts)) {
    throw new ApiError('validation_error', 'The request failed validation.', {
      details: [{ field: 'cursor', code: 'invalid_cursor', message: 'is not a cursor returned by this endpoint' }],
    });
  }
  return { ts, id };
}
