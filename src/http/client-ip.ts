// Resolves the client address through the trusted-proxy chain: X-Forwarded-For entries are
// believed only while the hop that added them is a trusted proxy, so a caller cannot spoof
// its address by sending the header itself. Ranges are parsed and matched by ipaddr.js
// (src/domain/ip-range.ts); TRUSTED_PROXIES was validated when the configuration was loaded.
import { isIPv4 } from 'node:net';
import { formatIpAddress, type IpRange, IpRangeList, parseIpAddress, parseIpRange } from '../domain/ip-range.js';

export { normaliseIp } from '../domain/ip-range.js';

const PEER_CACHE_SIZE = 4096;

export class ClientIpResolver {
  readonly #trusted: IpRangeList;
  readonly #any: boolean;
  // Canonical form by peer text: requests on one keep-alive connection, from one proxy or one
  // client repeat it, so the hot path mostly skips the parse. Bounded: cleared when full.
  readonly #peers = new Map<string, string>();

  constructor(trustedProxies: readonly string[]) {
    const ranges: IpRange[] = [];
    for (const entry of trustedProxies) {
      const range = parseIpRange(entry);
      if (range === null) throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`);
      ranges.push(range);
    }
    this.#trusted = new IpRangeList(ranges);
    this.#any = ranges.length > 0;
  }

  resolve(peer: string, forwardedFor: string | undefined): string {
    const peerIp = this.#canonicalPeer(peer);
    if (!this.#any || forwardedFor === undefined || forwardedFor === '') return peerIp;
    let current = parseIpAddress(peerIp);
    let currentText = peerIp;
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0 && current !== null && this.#trusted.containsAddress(current); i--) {
      const hop = parseIpAddress(hops[i] as string);
      if (hop === null) break;
      current = hop;
      currentText = formatIpAddress(hop);
    }
    return currentText;
  }

  isTrusted(ip: string): boolean {
    return this.#trusted.contains(ip);
  }

  #canonicalPeer(peer: string): string {
    const known = this.#peers.get(peer);
    if (known !== undefined) return known;
    // A dotted quad that passes isIPv4 is already canonical; anything else goes through ipaddr.js.
    let text = peer;
    if (!isIPv4(peer)) {
      const addr = parseIpAddress(peer);
      text = addr === null ? peer.trim() : formatIpAddress(addr);
    }
    if (this.#peers.size >= PEER_CACHE_SIZE) this.#peers.clear();
    this.#peers.set(peer, text);
    return text;
  }
}
