// Per-credential IP allowlists: entries are IPv4 or IPv6 addresses or CIDR ranges, parsed and
// matched by ipaddr.js (src/domain/ip-range.ts). The caller's address (ctx.ip) has already been
// resolved through TRUSTED_PROXIES by the edge.

import { formatIpRange, type IpRange, IpRangeList, parseIpRange } from '../domain/ip-range.js';
import { ApiError, type ErrorDetail } from '../errors/registry.js';

/** Validates and canonicalises allowlist entries as given at issue; throws validation_error (422). */
export function normaliseAllowlist(entries: readonly string[] | undefined | null, field = 'ip_allowlist'): string[] {
  if (entries === undefined || entries === null) return [];
  const out: string[] = [];
  const details: ErrorDetail[] = [];
  entries.forEach((raw, i) => {
    const range = parseIpRange(raw);
    if (range === null)
      details.push({ field: `${field}.${i}`, message: `"${raw}" is not an IP address or CIDR range` });
    else {
      const text = formatIpRange(range);
      if (!out.includes(text)) out.push(text);
    }
  });
  if (details.length > 0) throw new ApiError('validation_error', 'The request failed validation.', { details });
  return out;
}

/** A compiled allowlist; null when the credential allows any origin. */
export type CompiledAllowlist = IpRangeList | null;

export function compileAllowlist(entries: readonly string[]): CompiledAllowlist {
  if (entries.length === 0) return null;
  const ranges: IpRange[] = [];
  for (const raw of entries) {
    const range = parseIpRange(raw);
    if (range !== null) ranges.push(range); // validated at issue; a stray entry simply matches nothing
  }
  return new IpRangeList(ranges);
}

export function ipAllowed(list: CompiledAllowlist, ip: string): boolean {
  return list === null || list.contains(ip);
}
