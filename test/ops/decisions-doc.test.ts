// docs/decisions.md names every reason code the engine can answer with (src/decision/
// reasons.ts, plus the safe decision's system_unavailable), with its gate and what to do.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { REASONS } = (await import(`${DIST}decision/reasons.js`)) as typeof import('../../dist/src/decision/reasons.js');
const { SYSTEM_UNAVAILABLE } = (await import(
  `${DIST}decision/model/safe-decision.js`
)) as typeof import('../../dist/src/decision/model/safe-decision.js');

const doc = readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8');
const rows = new Map(
  doc
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => [l.split('|')[1]?.trim().replaceAll('`', '') ?? '', l] as const),
);

describe('docs/decisions.md', () => {
  it('has one row per reason code, with its gate and its recommendation', () => {
    for (const [code, info] of Object.entries(REASONS)) {
      const row = rows.get(code);
      expect(row, `docs/decisions.md has no row for ${code}`).toBeDefined();
      expect(row).toContain(info.gate === null ? '| none ' : `\`${info.gate}\``);
      expect(row?.replace(/\s+/g, ' ')).toContain(info.recommendation);
    }
    expect(rows.has(SYSTEM_UNAVAILABLE)).toBe(true);
    expect(rows.size).toBe(Object.keys(REASONS).length + 1);
  });
});
