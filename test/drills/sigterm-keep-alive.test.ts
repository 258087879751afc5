// Regression: SIGTERM under load on keep-alive connections reset requests (6 of 2,067 in the
// review of issue 11). The service runs as its own process (npm start's entry point) on a
// fresh database of the shared PostgreSQL. Sixteen keep-alive connections send /authorize one
// after another; four more sit idle after one request. On SIGTERM the service stops accepting,
// answers every request on the wire and the next one on each open connection with
// `Connection: close`, flushes the audit log and the outbox and exits 0 within
// SHUTDOWN_TIMEOUT_MS. No request written before the server closed its connection goes
// unanswered or meets a reset.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizeSetup, authorizeBody, authorizeSetup } from '../fixtures/authorize-setup.js';
import { auditIds, sleep } from '../fixtures/drills/instances.js';
import { type KeepAliveAnswer, type KeepAliveConnection, openKeepAlive } from '../fixtures/drills/keep-alive.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;
const LOAD_CONNECTIONS = 16;
const IDLE_CONNECTIONS = 4;

let service: ServiceProcess;
let port: number;
let setup: AuthorizeSetup;

beforeAll(async () => {
  service = await startServiceProcess({ SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });
  port = service.port;
  setup = await authorizeSetup(service);
}, 90_000);

afterAll(async () => {
  await service?.cleanup();
}, 60_000);

function authorize(conn: KeepAliveConnection): Promise<KeepAliveAnswer | null> {
  return conn.send(
    'POST',
    '/api/v1/authorize',
    { 'content-type': 'application/json', 'x-api-key': setup.principalKey },
    JSON.stringify(authorizeBody(setup.agentId, '0.01')),
  );
}

describe('drill: SIGTERM under load on keep-alive connections', () => {
  it('answers every request on the wire and the next on each connection with Connection: close, flushes, exits 0', async () => {
    const load = await Promise.all(Array.from({ length: LOAD_CONNECTIONS }, () => openKeepAlive('127.0.0.1', port)));
    const idle = await Promise.all(Array.from({ length: IDLE_CONNECTIONS }, () => openKeepAlive('127.0.0.1', port)));
    for (const c of idle) expect((await authorize(c))?.status).toBe(200);

    // The first Connection: close seen on any load connection: the drain has begun.
    let drainSeen: () => void = () => {};
    const drainBegun = new Promise<void>((r) => {
      drainSeen = r;
    });
    const failures: string[] = [];
    const loops = load.map(async (c) => {
      for (;;) {
        let answer: KeepAliveAnswer | null;
        try {
          answer = await authorize(c);
        } catch (err) {
          failures.push((err as Error).message);
          return;
        }
        if (answer === null) return; // the server had closed: nothing was sent
        if (answer.headers.connection === 'close') {
          drainSeen();
          return;
        }
      }
    });

    await sleep(1500);
    const answeredBeforeSignal = load.reduce((n, c) => n + c.answers.length, 0);
    const signalledAt = Date.now();
    service.child.kill('SIGTERM');

    // Each idle keep-alive connection sends its next request while the drain runs (or, on a
    // service that never says Connection: close, once the load has stopped or it has exited).
    await Promise.race([drainBegun, Promise.all(loops), service.exited]);
    const idleAnswers = await Promise.all(
      idle.map((c) =>
        authorize(c).catch((err: Error) => {
          failures.push(`idle: ${err.message}`);
          return null;
        }),
      ),
    );
    await Promise.all(loops);
    const code = await Promise.race([
      service.exited,
      sleep(SHUTDOWN_TIMEOUT_MS + 5_000).then(() => 'timeout' as const),
    ]);
    const stopMs = Date.now() - signalledAt;
    for (const c of [...load, ...idle]) c.close();

    expect(code).toBe(0);
    expect(stopMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(answeredBeforeSignal).toBeGreaterThan(LOAD_CONNECTIONS);
    // No reset, no request left unanswered on the wire.
    expect(failures).toEqual([]);
    for (const c of [...load, ...idle]) {
      expect(c.errors).toEqual([]);
      expect(c.unanswered).toBe(0);
    }
    // The idle connections' next request was answered, and closed its connection.
    for (const a of idleAnswers) {
      expect(a?.status).toBe(200);
      expect(a?.headers.connection).toBe('close');
    }
    // The last answer on every connection says Connection: close (and only the last).
    for (const c of [...load, ...idle]) {
      const last = c.answers[c.answers.length - 1];
      expect(last?.headers.connection).toBe('close');
      expect(c.answers.slice(0, -1).filter((a) => a.headers.connection === 'close')).toEqual([]);
    }

    // Every answer is a decision; every decision answered is in the audit log, and the audit
    // log holds nothing that was not answered.
    const answers = [...load, ...idle].flatMap((c) => c.answers);
    const parsed = answers.map((a) => JSON.parse(a.body) as { decision?: string; authorization_id?: string });
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const decided = parsed
      .filter((b) => typeof b.authorization_id === 'string')
      .map((b) => b.authorization_id as string);
    expect(parsed.filter((b) => b.decision === 'APPROVE').length).toBeGreaterThan(0);
    const ids = await auditIds(service.databaseUrl);
    expect(decided.filter((id) => !ids.has(id))).toEqual([]);
    const decidedSet = new Set(decided);
    expect([...ids].filter((id) => !decidedSet.has(id))).toEqual([]);

    // The outbox was flushed before exit: every event of those decisions is published.
    const sql = postgres(service.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [r] = await sql<{ total: string; unpublished: string }[]>`
        select count(*) as total, count(*) filter (where published_at is null) as unpublished from outbox_events`;
      expect(Number(r?.total)).toBeGreaterThan(0);
      expect(Number(r?.unpublished)).toBe(0);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }, 120_000);
});
