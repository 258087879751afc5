// tinybench: the address-range work on the request path, before (node:net BlockList and
// hand-written parsing, as of fe5a4ef) and after (ipaddr.js, src/domain/ip-range.ts), side by side.
// Per request the edge resolves the client address (ClientIpResolver.resolve) and, for a
// credential with an allowlist, matches it (ipAllowed).
// Run: npm run build && node dist/bench/ip-ranges.js
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { Bench } from 'tinybench';
import { compileAllowlist, ipAllowed } from '../src/auth/ip-allowlist.js';
import { ClientIpResolver } from '../src/http/client-ip.js';
import { printTinybench } from './report/results.js';

// --- before: the hand-written versions this change replaced ---------------------------------
function oldNormaliseIp(raw: string): string {
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
    try {
      return new URL(`http://[${lower}]/`).hostname.slice(1, -1);
    } catch {
      return lower;
    }
  }
  return ip;
}

class OldResolver {
  readonly #trusted = new BlockList();
  readonly #any: boolean;
  constructor(trustedProxies: readonly string[]) {
    this.#any = trustedProxies.length > 0;
    for (const entry of trustedProxies) {
      const [addr, bits] = entry.split('/') as [string, string | undefined];
      const type = isIPv6(addr) ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.#trusted.addAddress(addr, type);
      else this.#trusted.addSubnet(addr, Number(bits), type);
    }
  }
  resolve(peer: string, forwardedFor: string | undefined): string {
    const peerAddr = oldNormaliseIp(peer);
    if (!this.#any || forwardedFor === undefined || forwardedFor === '') return peerAddr;
    let current = peerAddr;
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0 && this.isTrusted(current); i--) {
      const hop = oldNormaliseIp((hops[i] as string).trim());
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

function oldAllowlist(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const e of entries) {
    const [addr, bits] = e.split('/') as [string, string | undefined];
    const type = isIPv6(addr) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return list;
}

function oldIpAllowed(list: BlockList, ip: string): boolean {
  const addr = oldNormaliseIp(ip);
  if (isIPv4(addr)) return list.check(addr, 'ipv4');
  if (isIPv6(addr)) return list.check(addr, 'ipv6');
  return false;
}

// --- inputs ---------------------------------------------------------------------------------
const PEER_V4 = '127.0.0.1';
const PEER_MAPPED = '0000:0000:0000:0000:0000:ffff:7f00:0001'; // uWS's text on a dual-stack listener
const PROXIES = ['10.0.0.0/8', '127.0.0.1', 'fd00::/8'];
const XFF = '203.0.113.7, 10.1.2.3';
const ALLOW = ['203.0.113.0/24', '198.51.100.7', '2001:db8::/32'];

const oldDirect = new OldResolver([]);
const newDirect = new ClientIpResolver([]);
const oldProxied = new OldResolver(PROXIES);
const newProxied = new ClientIpResolver(PROXIES);
const oldList = oldAllowlist(ALLOW);
const newList = compileAllowlist(ALLOW);

let sink = 0;
let next = 0;
// More distinct peers than the resolver caches, so every call parses.
const MANY_PEERS = Array.from({ length: 20_000 }, (_, i) =>
  i % 2 === 0
    ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
    : `0000:0000:0000:0000:0000:ffff:0a${((i >> 16) & 255).toString(16).padStart(2, '0')}:${(i & 0xffff).toString(16).padStart(4, '0')}`,
);
const bench = new Bench({ time: 500, warmupTime: 100 });
bench
  .add('before: resolve, no proxies, v4 peer', () => {
    sink += oldDirect.resolve(PEER_V4, undefined).length;
  })
  .add('after:  resolve, no proxies, v4 peer', () => {
    sink += newDirect.resolve(PEER_V4, undefined).length;
  })
  .add('before: resolve, no proxies, mapped peer', () => {
    sink += oldDirect.resolve(PEER_MAPPED, undefined).length;
  })
  .add('after:  resolve, no proxies, mapped peer', () => {
    sink += newDirect.resolve(PEER_MAPPED, undefined).length;
  })
  .add('before: resolve, no proxies, a new peer every call (half v4, half mapped)', () => {
    next = (next + 1) % MANY_PEERS.length;
    sink += oldDirect.resolve(MANY_PEERS[next] as string, undefined).length;
  })
  .add('after:  resolve, no proxies, a new peer every call (half v4, half mapped)', () => {
    next = (next + 1) % MANY_PEERS.length;
    sink += newDirect.resolve(MANY_PEERS[next] as string, undefined).length;
  })
  .add('before: resolve through 2 trusted hops', () => {
    sink += oldProxied.resolve(PEER_V4, XFF).length;
  })
  .add('after:  resolve through 2 trusted hops', () => {
    sink += newProxied.resolve(PEER_V4, XFF).length;
  })
  .add('before: allowlist match (3 ranges)', () => {
    sink += oldIpAllowed(oldList, '203.0.113.7') ? 1 : 0;
  })
  .add('after:  allowlist match (3 ranges)', () => {
    sink += ipAllowed(newList, '203.0.113.7') ? 1 : 0;
  });

await bench.run();
printTinybench(bench.tasks);
if (sink === -1) console.log(sink);
