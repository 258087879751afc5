// Per-credential IP allowlists: entries are IPv4 or IPv6 addresses or CIDRs. The caller's
// address (ctx.ip) has already been resolved through TRUSTED_PROXIES by the edge.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import { normaliseIp } from '../http/client-ip.js';

/** Validates and canonicalises allowlist entries as given at issue; throws validation_error. */
export function normaliseAllowlist(entries: readonly string[] | undefined | null, field = 'ip_allowlist'): string[] {
  if (entries === undefined || entries === null) return [];
  const out: string[] = [];
  const details: ErrorDetail[] = [];
  entries.forEach((raw, i) => {
    const entry = parseEntry(raw);
    if (entry === null) details.push({ field: `${field}.${i}`, message: `"${raw}" is not an IP address or CIDR` });
    else {
      const text = entry.bits === undefined ? entry.addr : `${entry.addr}/${entry.bits}`;
      if (!out.includes(text)) out.push(text);
    }
  });
  if (details.length > 0) throw new ApiError('validation_error', 'The request failed validation.', { details });
  return out;
}

interface Entry {
  addr: string;
  type: 'ipv4' | 'ipv6';
  bits: number | undefined;
}

function parseEntry(raw: string): Entry | null {
  const [addrPart, bitsPart, extra] = raw.trim().split('/');
  if (addrPart === undefined || extra !== undefined) return null;
  const addr = normaliseIp(addrPart);
  const type = isIPv4(addr) ? 'ipv4' : isIPv6(addr) ? 'ipv6' : null;
  if (type === null) return null;
  if (bitsPart === undefined) return { addr, type, bits: undefined };
  if (!/^\d{1,3}$/.test(bitsPart)) return null;
  const bits = Number(bitsPart);
  if (bits > (type === 'ipv4' ? 32 : 128)) return null;
  return { addr, type, bits };
}

/** A compiled allowlist; null when the credential allows any origin. */
export type CompiledAllowlist = BlockList | null;

export function compileAllowlist(entries: readonly string[]): CompiledAllowlist {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const raw of entries) {
    const e = parseEntry(raw);
    if (e === null) continue; // entries are validated at issue; a stray one simply matches nothing
    if (e.bits === undefined) list.addAddress(e.addr, e.type);
    else list.addSubnet(e.addr, e.bits, e.type);
  }
  return list;
}

export function ipAllowed(list: CompiledAllowlist, ip: string): boolean {
  if (list === null) return true;
  const addr = normaliseIp(ip);
  if (isIPv4(addr)) return list.check(addr, 'ipv4');
  if (isIPv6(addr)) return list.check(addr, 'ipv6');
  return false;
}
