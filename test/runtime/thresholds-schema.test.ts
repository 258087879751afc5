// schemas/ThresholdsUpdateRequest.json and ThresholdValues.json list the threshold fields for
// validation and the OpenAPI document; the pipeline's THRESHOLD_SPECS is the source of truth.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { THRESHOLD_NAMES, THRESHOLD_SPECS } from '../../src/decision/model/thresholds.js';

function schema(name: string): { properties: Record<string, Record<string, unknown>>; required?: string[] } {
  return JSON.parse(readFileSync(new URL(`../../schemas/${name}.json`, import.meta.url), 'utf8'));
}

describe('threshold schemas', () => {
  it('ThresholdsUpdateRequest accepts exactly the threshold fields, each a number or null', () => {
    const s = schema('ThresholdsUpdateRequest');
    expect(Object.keys(s.properties).sort()).toEqual([...THRESHOLD_NAMES].sort());
    for (const name of THRESHOLD_NAMES) {
      const kind = THRESHOLD_SPECS[name].integer ? 'integer' : 'number';
      expect(s.properties[name]?.type, name).toEqual([kind, 'null']);
    }
  });

  it('ThresholdValues requires every field, integers where the pipeline counts', () => {
    const s = schema('ThresholdValues');
    expect([...(s.required ?? [])].sort()).toEqual([...THRESHOLD_NAMES].sort());
    for (const name of THRESHOLD_NAMES) {
      expect(s.properties[name]?.type, name).toBe(THRESHOLD_SPECS[name].integer ? 'integer' : 'number');
    }
  });
});
