// A deliberate leak, to see the soak's memory bound fail (test/drills/soak.test.ts):
// SOAK_SERVICE_NODE_OPTIONS="--import ./test/drills/support/soak-leak.mjs" retains 64 KB every
// 20 ms (3.2 MB/s) in every thread that loads it. Never loaded otherwise.
const kept = [];
setInterval(() => kept.push(Buffer.alloc(65536, 1)), 20).unref();
