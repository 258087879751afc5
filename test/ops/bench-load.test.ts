// The bench's load generator (bench/load/run-load.ts): the warm-up lasts its seconds and,
// when asked, until enough answers came back (the JIT settles by work done), at most its cap;
// only what follows is measured.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRequest } from '../../dist/bench/load/connection.js';
import { runLoad } from '../../dist/bench/load/run-load.js';

let server: Server;
let port: number;
let answered = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      answered++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const request = () => ({ kind: 'x', bytes: buildRequest('POST', `127.0.0.1:${port}`, '/', {}, '{"a":1}') });

function load(extra: Record<string, number>) {
  return runLoad({
    host: '127.0.0.1',
    port,
    mode: 'saturation',
    rate: 0,
    connections: 2,
    pipelining: 1,
    durationSeconds: 0.5,
    warmupSeconds: 0.2,
    next: request,
    keepBodies: false,
    ...extra,
  });
}

describe('bench load generator warm-up', () => {
  it('warms up until the answers asked for have come back, then measures', async () => {
    const before = answered;
    const r = await load({ warmupRequests: 300, maxWarmupSeconds: 20 });
    expect(r.warmup.requests).toBeGreaterThanOrEqual(300);
    expect(r.warmup.seconds).toBeGreaterThanOrEqual(0.2);
    expect(r.completed).toBeGreaterThan(0);
    // Every answer is either warm-up or measured (or a straggler past the end, not recorded).
    expect(r.warmup.requests + r.completed).toBeLessThanOrEqual(answered - before);
  });

  it('stops warming up at its cap when the answers are slow to come', async () => {
    const r = await load({ warmupRequests: 10_000_000, maxWarmupSeconds: 0.6 });
    expect(r.warmup.requests).toBeLessThan(10_000_000);
    expect(r.warmup.seconds).toBeGreaterThanOrEqual(0.6);
    expect(r.warmup.seconds).toBeLessThan(2);
    expect(r.completed).toBeGreaterThan(0);
  });

  it('warms up for its seconds alone without a request count', async () => {
    const r = await load({});
    expect(r.warmup.seconds).toBeGreaterThanOrEqual(0.2);
    expect(r.warmup.seconds).toBeLessThan(0.5);
  });
});
