// An exception nobody catches (a bug in the service or in a dependency's error path) must not
// kill the process mid-request: the service logs it, stops taking requests, answers and flushes
// what it holds as on SIGTERM, and exits 1 so that its supervisor starts a fresh one. The
// exception is thrown on the real service process by a preloaded test double
// (test/fixtures/throw-on-signal.mjs) when the test sends SIGUSR2.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';

const THROWER = fileURLToPath(new URL('../fixtures/throw-on-signal.mjs', import.meta.url));
let service: ServiceProcess | undefined;

afterAll(async () => {
  await service?.cleanup();
});

describe('an uncaught exception', () => {
  it('is logged, the process drains and exits 1', async () => {
    service = await startServiceProcess({ SHUTDOWN_TIMEOUT_MS: '5000' }, { execArgv: ['--import', THROWER] });
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    service.child.kill('SIGUSR2');
    const code = await Promise.race([service.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
    expect(code).toBe(1);
    const lines = service
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message?: string }; origin?: string });
    const fatal = lines.find((l) => l.msg === 'uncaught exception: draining, then exiting 1');
    expect(fatal?.level).toBe(60);
    expect(fatal?.err?.message).toBe('test double: an exception nobody catches');
    expect(fatal?.origin).toBe('uncaughtException');
    // The graceful stop ran to its end: the edge drained and the service stopped.
    const after = lines.slice(lines.indexOf(fatal as (typeof lines)[number]));
    expect(after.some((l) => l.msg === 'http drained')).toBe(true);
    expect(after.some((l) => l.msg === 'stopped')).toBe(true);
    await expect(fetch(`${service.url}/health`)).rejects.toThrow();
  });
});
