// IP addresses and CIDR ranges as operators and integrators write them (TRUSTED_PROXIES,
// credential ip_allowlist), parsed and matched with ipaddr.js. Parsing is strict: IPv4 only in
// dotted-quad decimal (no octal, hex or short forms such as 127.1), IPv6 without a zone, a
// prefix length within the family's width. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the
// IPv4 address it maps, so a dual-stack listener's peers match IPv4 ranges.
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;
/** An address and a prefix length (a single address has its family's full width). */
export type IpRange = readonly [IpAddress, number];

/**
 * Parses one address; null when it is not a valid IPv4 or IPv6 address. The family is decided
 * by node:net's native checks first: ipaddr.js validates by throwing and catching, which costs
 * tens of microseconds per non-matching family, too much for the request path.
 */
export function parseIpAddress(text: string): IpAddress | null {
  let t = text.trim();
  if (t.length > 2 && t.charCodeAt(0) === 91 /* [ */ && t.charCodeAt(t.length - 1) === 93 /* ] */) {
    t = t.slice(1, -1);
  }
  // isIPv4 admits only dotted-quad decimal without leading zeros (no octal, hex or 127.1).
  if (isIPv4(t)) {
    const p = t.split('.');
    return new ipaddr.IPv4([Number(p[0]), Number(p[1]), Number(p[2]), Number(p[3])]);
  }
  if (!isIPv6(t) || t.includes('%')) return null;
  const v6 = ipaddr.IPv6.parse(t);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** Parses an address ("192.0.2.7") or a CIDR range ("10.0.0.0/8", "2001:db8::/32"); null when invalid. */
export function parseIpRange(text: string): IpRange | null {
  const t = text.trim();
  const slash = t.indexOf('/');
  if (slash < 0) {
    const addr = parseIpAddress(t);
    return addr === null ? null : [addr, addr.kind() === 'ipv4' ? 32 : 128];
  }
  const bitsText = t.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return null;
  let bits = Number(bitsText);
  const addrText = t.slice(0, slash);
  const addr = parseIpAddress(addrText);
  if (addr === null) return null;
  if (addr.kind() === 'ipv4' && addrText.includes(':')) {
    // ::ffff:10.0.0.0/104 is 10.0.0.0/8.
    if (bits < 96 || bits > 128) return null;
    bits -= 96;
  }
  return bits > (addr.kind() === 'ipv4' ? 32 : 128) ? null : [addr, bits];
}

/** The canonical text of an address: dotted quad or RFC 5952 IPv6. */
export function formatIpAddress(addr: IpAddress): string {
  return addr.kind() === 'ipv4' ? addr.toString() : (addr as ipaddr.IPv6).toRFC5952String();
}

/** The canonical text of a range: the address alone when the range is one address. */
export function formatIpRange([addr, bits]: IpRange): string {
  const full = addr.kind() === 'ipv4' ? 32 : 128;
  return bits === full ? formatIpAddress(addr) : `${formatIpAddress(addr)}/${bits}`;
}

/** The canonical text of an address, or the input trimmed when it is not one. */
export function normaliseIp(raw: string): string {
  const addr = parseIpAddress(raw);
  return addr === null ? raw.trim() : formatIpAddress(addr);
}

/** A set of ranges, split by family so a lookup only compares like with like. */
export class IpRangeList {
  readonly #v4: [ipaddr.IPv4, number][] = [];
  readonly #v6: [ipaddr.IPv6, number][] = [];

  constructor(ranges: readonly IpRange[]) {
    for (const [addr, bits] of ranges) {
      if (addr.kind() === 'ipv4') this.#v4.push([addr as ipaddr.IPv4, bits]);
      else this.#v6.push([addr as ipaddr.IPv6, bits]);
    }
  }

  get size(): number {
    return this.#v4.length + this.#v6.length;
  }

  /** True when the address (text) lies in one of the ranges; false for anything not an address. */
  contains(ip: string): boolean {
    const addr = parseIpAddress(ip);
    return addr !== null && this.containsAddress(addr);
  }

  containsAddress(addr: IpAddress): boolean {
    if (addr.kind() === 'ipv4') {
      for (const r of this.#v4) if ((addr as ipaddr.IPv4).match(r)) return true;
      return false;
    }
    for (const r of this.#v6) if ((addr as ipaddr.IPv6).match(r)) return true;
    return false;
  }
}
