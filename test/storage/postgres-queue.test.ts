// postgres.js keeps its pool's connections in Queues. Unpatched, a queue that is shifted and
// pushed without ever running empty (every connection busy, more queries than connections)
// grows by one slot per query and remove() scans all of it: memory and CPU grow with the
// number of queries for as long as the load lasts. `npm install` applies
// patches/postgres+3.4.9.patch (patch-package); this checks the patch is in place and bounded.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';

interface PgQueue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T;
  remove(x: T): T | null;
}
// The package exports only its entry point; the file is imported by path.
const { default: newQueue } = (await import(
  new URL('../../node_modules/postgres/src/queue.js', import.meta.url).href
)) as {
  default: <T>(initial?: T[]) => PgQueue<T>;
};

describe('postgres.js connection queue', () => {
  it('is patched in every build of the package', () => {
    for (const file of ['src/queue.js', 'cjs/src/queue.js', 'cf/src/queue.js']) {
      const text = readFileSync(new URL(`../../node_modules/postgres/${file}`, import.meta.url), 'utf8');
      expect(text, file).toContain('patched (patches/postgres+3.4.9.patch)');
    }
  });

  it('stays as cheap after 300 000 busy-connection rotations as at the start', () => {
    // The pool's pattern with every connection busy: take the head, move() it (remove from
    // its old queue, where it no longer is), push it back.
    const q = newQueue<{ id: number }>();
    const conns = [0, 1, 2, 3].map((id) => ({ id }));
    for (const c of conns) q.push(c);
    const order: number[] = [];
    let found = 0;
    const started = performance.now();
    for (let i = 0; i < 300_000; i++) {
      const c = q.shift();
      if (q.remove(c) !== null) found++;
      q.push(c);
      if (i < 8) order.push(c.id);
    }
    // Unpatched this is ~4.5e10 element scans (minutes); patched, milliseconds.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(found).toBe(0);
    expect(order).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
    expect(q.length).toBe(4);
    // remove() still finds a queued element, and FIFO order survives the compaction.
    expect(q.remove(conns[2] as { id: number })).toBe(conns[2]);
    expect([q.shift().id, q.shift().id, q.shift().id]).toEqual([0, 1, 3]);
    expect(q.length).toBe(0);
  });
});
