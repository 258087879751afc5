// Drill: the drain is bounded. A client that stops half-way through its request body holds a
// request in flight that can never be answered; on SIGTERM the service waits for it at most half
// of SHUTDOWN_TIMEOUT_MS, cuts it (logging how many it cut), flushes and exits 0 within the bound.
// An idle keep-alive connection does not hold the stop either.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../fixtures/drills/instances.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';

const SHUTDOWN_TIMEOUT_MS = 2_000;
let service: ServiceProcess;

beforeAll(async () => {
  service = await startServiceProcess({ SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });
}, 90_000);

afterAll(async () => {
  await service?.cleanup();
}, 60_000);

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: service.port }, () => resolve(s));
    s.once('error', reject);
  });
}

describe('drill: SIGTERM with a request that never completes', () => {
  it('cuts it at the drain deadline and exits 0 within SHUTDOWN_TIMEOUT_MS', async () => {
    const idle = await open();
    idle.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    await new Promise((r) => idle.once('data', r));
    const stuck = await open();
    stuck.on('error', () => {});
    stuck.write(
      'POST /api/v1/authorize HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"agent',
    );
    await sleep(200);

    const signalledAt = Date.now();
    service.child.kill('SIGTERM');
    const code = await Promise.race([service.exited, sleep(20_000).then(() => 'timeout' as const)]);
    const stopMs = Date.now() - signalledAt;
    idle.destroy();
    stuck.destroy();

    expect(code).toBe(0);
    expect(stopMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    // It waited for the request (half the bound), then cut exactly that one.
    expect(stopMs).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS / 2);
    const cutLine = service
      .stdout()
      .split('\n')
      .find((l) => l.includes('drain deadline cut requests'));
    expect(cutLine).toBeDefined();
    expect(JSON.parse(cutLine as string)).toMatchObject({ cut: 1 });
  }, 60_000);
});
