// @ts-check
// A closed-loop flood of POST /authorize in a worker thread of its own, so that the flood's
// client work does not delay the test's measured requests on the test's event loop: `connections`
// loops, each sending its next request the moment the last is answered, until the parent posts
// 'stop'; then it posts back the count of each status and the Retry-After values seen on 429.
// workerData: { url, apiKey, bodies: string[], connections }.
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

const { url, apiKey, bodies, connections } = workerData;
const pool = new Pool(url, { connections });
/** @type {Record<string, number>} */
const statuses = {};
/** @type {Set<string>} */
const retryAfter = new Set();
let stopped = false;

const loops = Array.from({ length: connections }, async (_, i) => {
  while (!stopped) {
    const res = await pool.request({
      method: 'POST',
      path: '/api/v1/authorize',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: bodies[i % bodies.length],
    });
    await res.body.dump();
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    if (res.statusCode === 429) retryAfter.add(String(res.headers['retry-after']));
  }
});

parentPort?.on('message', async (msg) => {
  if (msg !== 'stop') return;
  stopped = true;
  await Promise.all(loops);
  await pool.close();
  parentPort?.postMessage({ statuses, retryAfter: [...retryAfter] });
});
