// postgres.js defers small writes to the next turn (setImmediate); when the connection closes in
// between, the deferred write ran on a socket set to null and threw "Cannot read properties of
// null (reading 'write')" from a timer, an uncaught exception that stops the process (upstream
// porsager/postgres#1154, #1066, #1208). patches/postgres+3.4.9.patch makes that write fail the
// queries it carried with CONNECTION_CLOSED instead. Reproduced here on a real PostgreSQL behind a
// proxy that cuts the connection: a query is sent on a reserved connection whose socket just
// closed, so its bytes wait for a write that finds no socket.
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../fixtures/tcp-proxy.js';
import { PG_BASE_URL } from '../helpers/server.js';

const target = new URL(PG_BASE_URL);
const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });

afterAll(async () => {
  await proxy.close();
});

describe('postgres.js: a write deferred past the close of its connection', () => {
  it('fails its query with CONNECTION_CLOSED and throws nothing uncaught', async () => {
    await proxy.listen();
    const url = new URL(PG_BASE_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    url.pathname = '/postgres';
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {}, connect_timeout: 5 });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const tx = await sql.reserve();
      expect((await tx`select 1 as one`)[0]).toEqual({ one: 1 });
      // Cut the connection, wait for the client to see the close, then send a small query on it:
      // its bytes are deferred to the next turn, when the socket is already gone.
      await proxy.cut('refuse');
      await new Promise((r) => setTimeout(r, 100));
      const outcome = await Promise.race([
        tx`select 2 as two`.then(
          () => 'resolved',
          (err: { code?: string }) => err.code ?? String(err),
        ),
        new Promise((r) => setTimeout(() => r('pending'), 2_000)),
      ]);
      // Let any timer that would throw run.
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
      expect(outcome).toBe('CONNECTION_CLOSED');
      tx.release();
    } finally {
      process.off('uncaughtException', onUncaught);
      await sql.end({ timeout: 1 }).catch(() => {});
    }
  });
});
