// SSRF protection for webhook URLs (WEBHOOK_URL_POLICY). Under `public` a URL must be https
// and every address it names or resolves to must be a public unicast address. The check runs
// at registration (literal IPs in every notation: the WHATWG URL parser already turns
// 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 into 127.0.0.1) and again at connection time on
// the resolved addresses (src/webhooks/http-client.ts).
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { WebhookUrlPolicy } from '../config/config.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The one message a Principal sees for any address refused by the policy: it never names what a name resolved to. */
export const DESTINATION_NOT_ALLOWED = 'destination not allowed';

/**
 * True for a public unicast IPv4 or IPv6 address; false for anything else, including junk.
 * Ranges are ipaddr.js's IANA special-purpose registries: IPv4 must be `unicast` (not private,
 * loopback, link-local and cloud metadata 169.254.169.254, CGNAT, reserved, documentation,
 * benchmarking, AS112, AMT, multicast, broadcast). IPv6 must be `unicast` inside 2000::/3, the
 * only globally routed block (so unique local fc00::/7 with fd00:ec2::254, link-local, site-local,
 * multicast, IPv4-mapped and -compatible, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, Teredo, ORCHID,
 * documentation 2001:db8::/32 and 3fff::/20 are refused), or 6to4 (2002::/16) whose embedded IPv4
 * is itself public.
 */
export function isPublicAddress(address: string): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip).range() === 'unicast';
  if (ip.includes('%') || !ipaddr.IPv6.isValid(ip)) return false;
  const v6 = ipaddr.IPv6.parse(ip);
  const range = v6.range();
  if (range === '6to4') {
    const p = v6.parts;
    const embedded = new ipaddr.IPv4([
      (p[1] as number) >> 8,
      (p[1] as number) & 255,
      (p[2] as number) >> 8,
      (p[2] as number) & 255,
    ]);
    return embedded.range() === 'unicast';
  }
  return range === 'unicast' && v6.match(GLOBAL_UNICAST) && !v6.match(DOCUMENTATION_3FFF);
}

const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];
// RFC 9637 documentation prefix, newer than ipaddr.js's registry.
const DOCUMENTATION_3FFF: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('3fff::'), 20];

/** The literal IP of a URL hostname (brackets removed), or null for a DNS name. */
export function literalIp(hostname: string): string | null {
  const h = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIPv4(h) || isIPv6(h) ? h : null;
}

// Names that always mean this machine or a private network, refused before any lookup.
const LOCAL_NAME = /(^|\.)(localhost|localdomain|local|internal|intranet|home\.arpa|lan)\.?$/i;

export type UrlCheck = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

/** The port a URL connects to: its explicit port, else its scheme's default. */
export function urlPort(url: { port: string; protocol: string }): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'http:' ? 80 : 443;
}

/**
 * The registration-time check of a webhook URL under the policy. Under `public`: https, a
 * port in `allowedPorts` (WEBHOOK_ALLOWED_PORTS, default 443 only), no literal non-public
 * address and no local name; the addresses a name resolves to are checked at connection time
 * (src/webhooks/http-client.ts). Under `any` (development, tests): http or https, any port.
 */
export function checkWebhookUrl(
  raw: string,
  policy: WebhookUrlPolicy,
  allowedPorts: readonly number[] = [443],
): UrlCheck {
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
  if (url.protocol !== 'https:') {
    return {
      ok: false,
      reason: 'must use https (for a local receiver in development, run with WEBHOOK_URL_POLICY=any)',
    };
  }
  const port = urlPort(url);
  if (!allowedPorts.includes(port)) {
    return { ok: false, reason: `must use port ${allowedPorts.join(' or ')} (port ${port} is not allowed)` };
  }
  const ip = literalIp(url.hostname);
  if (ip !== null) {
    if (!isPublicAddress(ip)) return { ok: false, reason: DESTINATION_NOT_ALLOWED };
    return { ok: true, url };
  }
  if (LOCAL_NAME.test(url.hostname) || !url.hostname.includes('.')) {
    return { ok: false, reason: DESTINATION_NOT_ALLOWED };
  }
  return { ok: true, url };
}
