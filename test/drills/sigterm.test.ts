// Drill: SIGTERM during load. The service runs as its own process (npm start's entry point)
// on a fresh database of the shared PostgreSQL; a stream of authorizations runs while it gets
// SIGTERM. It stops accepting, answers every request it accepted, flushes the audit log and
// exits 0: the decisions in the audit log are exactly the ones answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizeSetup, authorizeSetup } from '../fixtures/authorize-setup.js';
import { auditIds, authorizeStream, sleep } from '../fixtures/drills/instances.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';

let service: ServiceProcess;
let setup: AuthorizeSetup;

beforeAll(async () => {
  service = await startServiceProcess();
  setup = await authorizeSetup({ url: service.url, adminKey: service.adminKey });
}, 90_000);

afterAll(async () => {
  await service?.cleanup();
}, 60_000);

describe('drill: SIGTERM under load', () => {
  it('answers every accepted request, flushes the audit log and exits 0', async () => {
    const stream = authorizeStream(service.url, setup.principalKey, setup.agentId, 8, { stopOnTransportError: true });
    await sleep(1500);
    const answeredBeforeSignal = stream.answers.length;
    service.child.kill('SIGTERM');
    const code = await Promise.race([service.exited, sleep(30_000).then(() => 'timeout' as const)]);
    await stream.stop();

    expect(code).toBe(0);
    expect(answeredBeforeSignal).toBeGreaterThan(0);
    // Every answer is a decision (no 5xx, no half answers).
    expect(stream.answers.filter((a) => a.status !== 200 || a.decision === null)).toEqual([]);
    // Only requests the server did not accept fail, refused on a new connection: a draining
    // server closes each keep-alive connection with its last answer (Connection: close), so no
    // request is ever reset (test/drills/sigterm-keep-alive.test.ts shows it on raw sockets).
    for (const e of stream.transportErrors) expect(e.message).toMatch(/ECONNREFUSED/);

    // The audit log holds exactly the decisions answered: none answered and lost, none
    // decided and left unanswered.
    const ids = await auditIds(service.databaseUrl);
    const answered = stream.answers
      .filter((a) => !a.reasonCodes.includes('system_unavailable'))
      .map((a) => a.id as string);
    expect(answered.filter((id) => !ids.has(id))).toEqual([]);
    const answeredSet = new Set(answered);
    expect([...ids].filter((id) => !answeredSet.has(id))).toEqual([]);
  }, 90_000);
});
