// Patches the internal Queue of postgres.js (node_modules/postgres, 3.4.9 and earlier), run by
// `npm run build`. Its pool keeps connections in these queues; shift() only blanks the slot it
// took and resets the array once the queue is empty. While every connection is busy and more
// queries arrive than there are connections (the shard workers' steady state under load), the
// `busy` queue is shifted and pushed once per query without ever running empty: its array grows
// by one slot per query for as long as the load lasts, and remove(), which every connection
// state change calls, scans all of it. Measured: a shard worker fell from ~2 000 to ~300
// decisions/s over a million agents, 93% of its time in Array.prototype.indexOf.
//
// The fix: shift() drops the blanked prefix once it is at least 1 024 slots and half the array
// (amortised O(1), the array stays within twice the queue plus 1 024), and remove() searches
// from the head. Same behaviour otherwise. Idempotent; a file that is neither the known original
// nor already patched is left alone with a warning (a newer postgres.js may have changed it).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'postgres');
const MARK = '// patched by build/patch-postgres-queue.mjs';

const ORIGINAL = `    remove: (x) => {
      const index = xs.indexOf(x)
      return index === -1
        ? null
        : (xs.splice(index, 1), x)
    },
    push: (x) => (xs.push(x), x),
    shift: () => {
      const out = xs[index++]

      if (index === xs.length) {
        index = 0
        xs = []
      } else {
        xs[index - 1] = undefined
      }

      return out
    }`;

const PATCHED = `    ${MARK}
    remove: (x) => {
      const at = xs.indexOf(x, index)
      return at === -1
        ? null
        : (xs.splice(at, 1), x)
    },
    push: (x) => (xs.push(x), x),
    shift: () => {
      const out = xs[index++]

      if (index === xs.length) {
        index = 0
        xs = []
      } else if (index >= 1024 && index * 2 >= xs.length) {
        xs = xs.slice(index)
        index = 0
      } else {
        xs[index - 1] = undefined
      }

      return out
    }`;

let patched = 0;
for (const file of ['src/queue.js', 'cjs/src/queue.js', 'cf/src/queue.js']) {
  const path = join(ROOT, file);
  if (!existsSync(path)) continue;
  const text = readFileSync(path, 'utf8');
  if (text.includes(MARK)) {
    patched++;
    continue;
  }
  if (!text.includes(ORIGINAL)) {
    process.stderr.write(`patch-postgres-queue: ${path} is not the known postgres.js Queue; left as it is\n`);
    continue;
  }
  writeFileSync(path, text.replace(ORIGINAL, PATCHED));
  patched++;
}
process.stdout.write(`patched the postgres.js connection queue (${patched} files)\n`);
