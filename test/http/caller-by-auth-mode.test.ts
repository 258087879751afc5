// The edge hands a handler the caller its route's auth mode names (RequestContext<A>), checked
// once: a route of mode 'principal' sees a PrincipalAuth and its environment's database, an
// admin route no database, and a caller of another kind is refused 401 unauthorized before the
// handler runs. The service's own authenticator never answers another kind; a stub does here.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminAuth, AuthContext, ClientAuth, PrincipalAuth } from '../../src/auth/types.js';
import { loadConfig } from '../../src/config/config.js';
import type { ClientId, CredentialId, PrincipalId } from '../../src/domain/ids.js';
import { Router } from '../../src/http/router.js';
import { HttpServer } from '../../src/http/server.js';
import { type Authenticator, json, type RouteDef } from '../../src/http/types.js';
import type { Databases } from '../../src/storage/db.js';
import { expectEnvelope, request } from '../fixtures/server.js';

const PRINCIPAL: PrincipalAuth = {
  kind: 'principal',
  principalId: 'prn_a' as PrincipalId,
  clientId: 'cli_a' as ClientId,
  credentialId: 'crd_p' as CredentialId,
  environment: 'sandbox',
  scopes: [],
  via: 'key',
};
const CLIENT: ClientAuth = {
  kind: 'client',
  clientId: 'cli_a' as ClientId,
  credentialId: 'crd_c' as CredentialId,
  environment: 'live',
  scopes: [],
};
const ADMIN: AdminAuth = { kind: 'admin' };
const CALLERS: Record<string, AuthContext> = { principal: PRINCIPAL, client: CLIENT, admin: ADMIN };

/** A database handle per environment; the handlers answer which one they got. */
const DBS = { live: { env: 'live' }, sandbox: { env: 'sandbox' } };
const dbs = { forEnv: (env: 'live' | 'sandbox') => DBS[env] } as unknown as Databases;

/** Answers the caller the request's x-caller header names, whatever the route's mode. */
const stub: Authenticator = {
  authenticate: async (ctx) => CALLERS[ctx.headers['x-caller'] ?? ''] ?? null,
};

const handled: string[] = [];
const dbName = (db: unknown) => (db === null ? null : (db as { env: string }).env);
const routes: RouteDef[] = [
  {
    method: 'GET',
    path: '/p',
    auth: 'principal',
    summary: 'principal',
    handler: (ctx) => {
      handled.push('p');
      return json(200, { principal_id: ctx.auth.principalId, db: dbName(ctx.db) });
    },
  },
  {
    method: 'GET',
    path: '/k',
    auth: 'principal_key',
    summary: 'principal key',
    handler: (ctx) => {
      handled.push('k');
      return json(200, { principal_id: ctx.auth.principalId, db: dbName(ctx.db) });
    },
  },
  {
    method: 'GET',
    path: '/c',
    auth: 'client',
    summary: 'client',
    handler: (ctx) => {
      handled.push('c');
      return json(200, { client_id: ctx.auth.clientId, db: dbName(ctx.db) });
    },
  },
  {
    method: 'GET',
    path: '/a',
    auth: 'admin',
    summary: 'admin',
    handler: (ctx) => {
      handled.push('a');
      return json(200, { kind: ctx.auth.kind, db: ctx.db });
    },
  },
];

let server: HttpServer;
let url: string;
beforeAll(async () => {
  const router = new Router();
  for (const r of routes) router.add(r);
  server = new HttpServer({
    config: loadConfig({ ADMIN_KEY: 'admin_unused_in_this_test_000000', LOG_LEVEL: 'silent' }),
    log: pino({ level: 'silent' }),
    router,
    authenticator: stub,
    dbs,
  });
  url = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
});
afterAll(async () => {
  await server?.close(1000);
});

const get = (path: string, caller: string) => request({ url }, 'GET', path, { headers: { 'x-caller': caller } });

describe('the caller a handler sees, by its route auth mode', () => {
  it("gives a principal route's handler the Principal and its environment's database", async () => {
    for (const path of ['/p', '/k']) {
      const res = await get(path, 'principal');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ principal_id: 'prn_a', db: 'sandbox' });
    }
  });

  it("gives a client route's handler the Client and its environment's database", async () => {
    const res = await get('/c', 'client');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ client_id: 'cli_a', db: 'live' });
  });

  it("gives an admin route's handler the operator and no database", async () => {
    const res = await get('/a', 'admin');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ kind: 'admin', db: null });
  });

  it('refuses a caller of another kind with 401 before the handler runs', async () => {
    handled.length = 0;
    const refused: [string, string][] = [
      ['/p', 'client'],
      ['/p', 'admin'],
      ['/k', 'client'],
      ['/c', 'principal'],
      ['/c', 'admin'],
      ['/a', 'principal'],
      ['/a', 'client'],
      ['/p', 'nobody'],
    ];
    for (const [path, caller] of refused) expectEnvelope(await get(path, caller), 401, 'unauthorized');
    expect(handled).toEqual([]);
  });
});
