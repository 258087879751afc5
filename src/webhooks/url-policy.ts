// SSRF protection for webhook URLs (WEBHOOK_URL_POLICY). Under `public` a URL must be https
// and every address it names or resolves to must be a public unicast address. The check runs
// at registration (literal IPs in every notation: the WHATWG URL parser already turns
// 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 into 127.0.0.1) and again at connection time on
// the resolved addresses (src/webhooks/http-client.ts).
import { isIPv4, isIPv6 } from 'node:net';
import type { WebhookUrlPolicy } from '../config/config.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

// [network, prefix length] of every IPv4 range that is not publicly routable.
const V4_BLOCKED: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.31.196.0', 24], // AS112
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const V4_RANGES = V4_BLOCKED.map(([net, len]) => {
  const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
  return { base: (v4ToInt(net) & mask) >>> 0, mask };
});

function v4ToInt(ip: string): number {
  const p = ip.split('.').map(Number);
  return (((p[0] as number) << 24) | ((p[1] as number) << 16) | ((p[2] as number) << 8) | (p[3] as number)) >>> 0;
}

function isPublicV4Int(n: number): boolean {
  for (const r of V4_RANGES) if ((n & r.mask) >>> 0 === r.base) return false;
  return true;
}

/** Parses an IPv6 text form (with an optional embedded dotted IPv4 tail) to 8 16-bit groups. */
function v6Groups(ip: string): number[] | null {
  let text = ip;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const maybeV4 = text.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    if (!isIPv4(maybeV4)) return null;
    const n = v4ToInt(maybeV4);
    tail = [n >>> 16, n & 0xffff];
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  const fill = 8 - head.length - rest.length;
  if (halves.length === 1 && fill !== 0) return null;
  if (fill < 0) return null;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? fill : 0).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return null;
  if (tail.length === 2) {
    groups[6] = tail[0] as number;
    groups[7] = tail[1] as number;
  }
  return groups;
}

function isPublicV6(ip: string): boolean {
  const g = v6Groups(ip);
  if (g === null) return false;
  const [g0, g1, g2, g3] = g as [number, number, number, number];
  // ::/96 (unspecified ::, loopback ::1, IPv4-compatible), ::ffff:0:0/96 (IPv4-mapped) and
  // ::ffff:0:0:0/96 (IPv4-translated) all lead to an IPv4 or local destination: refused.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0) return false;
  // 64:ff9b::/96 and 64:ff9b:1::/48 NAT64: the target is an IPv4 address behind a translator.
  if (g0 === 0x64 && g1 === 0xff9b) return false;
  // 100::/64 discard-only.
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return false;
  // 2001::/23 IETF protocol assignments (Teredo 2001::/32, ORCHID, benchmarking 2001:2::/48).
  if (g0 === 0x2001 && g1 < 0x200) return false;
  // 2001:db8::/32 documentation.
  if (g0 === 0x2001 && g1 === 0xdb8) return false;
  // 2002::/16 6to4: the embedded IPv4 (groups 1-2) must itself be public.
  if (g0 === 0x2002) return isPublicV4Int(((g1 << 16) | g2) >>> 0);
  // 3fff::/20 documentation (RFC 9637).
  if (g0 === 0x3fff && g1 < 0x1000) return false;
  // fc00::/7 unique local (incl. fd00:ec2::254, the EC2 metadata address), fe80::/10
  // link-local, fec0::/10 site-local, ff00::/8 multicast.
  if ((g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0) return false;
  if ((g0 & 0xff00) === 0xff00) return false;
  // Only global unicast 2000::/3 is routable on the public Internet.
  return (g0 & 0xe000) === 0x2000;
}

/** True for a public unicast IPv4 or IPv6 address; false for anything else, including junk. */
export function isPublicAddress(address: string): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(ip)) return isPublicV4Int(v4ToInt(ip));
  if (isIPv6(ip)) return isPublicV6(ip);
  return false;
}

/** The literal IP of a URL hostname (brackets removed), or null for a DNS name. */
export function literalIp(hostname: string): string | null {
  const h = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIPv4(h) || isIPv6(h) ? h : null;
}

// Names that always mean this machine or a private network, refused before any lookup.
const LOCAL_NAME = /(^|\.)(localhost|localdomain|local|internal|intranet|home\.arpa|lan)\.?$/i;

export type UrlCheck = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

/** The registration-time check of a webhook URL under the policy. */
export function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy): UrlCheck {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, reason: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a valid absolute URL' };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not contain credentials' };
  if (policy === 'any') {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must use https or http' };
    return { ok: true, url };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'must use https' };
  const ip = literalIp(url.hostname);
  if (ip !== null) {
    if (!isPublicAddress(ip)) return { ok: false, reason: 'must not point at a private, loopback or reserved address' };
    return { ok: true, url };
  }
  if (LOCAL_NAME.test(url.hostname) || !url.hostname.includes('.')) {
    return { ok: false, reason: 'must name a public host' };
  }
  return { ok: true, url };
}
