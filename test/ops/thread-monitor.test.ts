// A shard thread's GC pauses and event-loop delay (src/observability/thread-monitor.ts), the
// figures behind asas_shard_gc_duration_seconds and asas_shard_eventloop_lag_*_seconds.
import { describe, expect, it } from 'vitest';
import { ThreadMonitor } from '../../dist/src/observability/thread-monitor.js';

describe('ThreadMonitor', () => {
  it('counts the GC pauses of its thread and measures its event-loop delay, restarting at each snapshot', async () => {
    const rt = new ThreadMonitor();
    try {
      // Allocate enough short-lived objects for young-generation collections.
      let keep: unknown[] = [];
      for (let i = 0; i < 400_000; i++) {
        keep.push({ i, s: `x${i}` });
        if (keep.length > 10_000) keep = [];
      }
      // Let the 10 ms sampler start, block the loop for ~60 ms, then let it sample again.
      await new Promise((r) => setTimeout(r, 40));
      const until = Date.now() + 60;
      while (Date.now() < until) {
        // busy
      }
      await new Promise((r) => setTimeout(r, 50));
      const s = rt.snapshot();
      const gc = Object.values(s.gcSeconds);
      expect(gc.reduce((n, h) => n + h.count, 0)).toBeGreaterThan(0);
      for (const h of gc) expect(h.counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(h.count);
      expect(s.loopDelayMaxSeconds).not.toBeNull();
      expect(s.loopDelayMaxSeconds as number).toBeGreaterThanOrEqual(0.04);
      await new Promise((r) => setTimeout(r, 50));
      // The delay restarts: the 60 ms block is not in the next snapshot.
      expect(rt.snapshot().loopDelayMaxSeconds ?? 0).toBeLessThan(0.04);
    } finally {
      rt.stop();
    }
  });
});
