// libpq's Unix-socket URL form (?host=/dir) becomes postgres.js's `path` option.
import { describe, expect, it } from 'vitest';
import { socketTarget } from '../../src/storage/db.js';

describe('socketTarget', () => {
  it('turns ?host=/dir into the socket path and drops it from the URL', () => {
    const t = socketTarget('postgres://root@localhost/test?host=/var/run/postgresql');
    expect(t.options.path).toBe('/var/run/postgresql/.s.PGSQL.5432');
    expect(t.url).toBe('postgres://root@localhost/test');
  });

  it('keeps the port in the socket file name', () => {
    expect(socketTarget('postgres://u@localhost:6543/db?host=/tmp').options.path).toBe('/tmp/.s.PGSQL.6543');
  });

  it('leaves TCP URLs and other query parameters alone', () => {
    expect(socketTarget('postgres://root@127.0.0.1:5432/test')).toEqual({
      url: 'postgres://root@127.0.0.1:5432/test',
      options: {},
    });
    expect(socketTarget('postgres://u@h/db?sslmode=require').options).toEqual({});
  });
});
