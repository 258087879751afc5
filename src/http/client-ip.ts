// Resolves the client address through the trusted-proxy chain: X-Forwarded-For entries are
// believed only while the hop that added them is a trusted proxy, so a caller cannot spoof
// its address by sending the header itself.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export class ClientIpResolver {
  readonly #trusted: BlockList;
  readonly #any: boolean;

  constructor(trustedProxies: readonly string[]) {
    this.#trusted = new BlockList();
    this.#any = trustedProxies.length > 0;
    for (const entry of trustedProxies) {
      const [addr, bits] = entry.split('/') as [string, string | undefined];
      const type = isIPv6(addr) ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.#trusted.addAddress(addr, type);
      else this.#trusted.addSubnet(addr, Number(bits), type);
    }
  }

  resolve(peer: string, forwardedFor: string | undefined): string {
    const peerAddr = normaliseIp(peer);
    if (!this.#any || forwardedFor === undefined || forwardedFor === '') return peerAddr;
    let current = peerAddr;
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0 && this.isTrusted(current); i--) {
      const hop = normaliseIp((hops[i] as string).trim());
      if (!isIPv4(hop) && !isIPv6(hop)) break;
      current = hop;
    }
    return current;
  }

  isTrusted(ip: string): boolean {
    if (isIPv4(ip)) return this.#trusted.check(ip, 'ipv4');
    if (isIPv6(ip)) return this.#trusted.check(ip, 'ipv6');
    return false;
  }
}

/** Canonical text form: IPv4-mapped IPv6 becomes dotted IPv4; uWS's long IPv6 form is shortened. */
export function normaliseIp(raw: string): string {
  let ip = raw.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const lower = ip.toLowerCase();
  const mapped = /^(?:0{0,4}:){0,5}(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1] !== undefined) return mapped[1];
  const mappedHex = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mappedHex?.[1] !== undefined && mappedHex[2] !== undefined) {
    const hi = Number.parseInt(mappedHex[1], 16);
    const lo = Number.parseInt(mappedHex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  if (isIPv6(lower)) {
    // Shorten via URL parsing, which canonicalises IPv6 hosts.
    try {
      return new URL(`http://[${lower}]/`).hostname.slice(1, -1);
    } catch {
      return lower;
    }
  }
  return ip;
}
