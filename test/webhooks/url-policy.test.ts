// SSRF rules of WEBHOOK_URL_POLICY=public as pure logic: every notation of a non-public address
// is refused, public https URLs pass, and `any` allows http and loopback for development.
import { describe, expect, it } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { checkWebhookUrl, isPublicAddress } = (await import(
  `${DIST}webhooks/url-policy.js`
)) as typeof import('../../src/webhooks/url-policy.js');

describe('checkWebhookUrl under policy public', () => {
  const refused = [
    'http://example.com/hook', // not https
    'https://127.0.0.1/h',
    'https://2130706433/h', // decimal
    'https://0177.0.0.1/h', // octal
    'https://0x7f.1/h', // hex, short
    'https://0x7f000001/h',
    'https://127.1/h', // short
    'https://017700000001/h',
    'https://[::1]/h',
    'https://[::]/h',
    'https://0.0.0.0/h',
    'https://0/h',
    'https://10.1.2.3/h',
    'https://172.16.0.1/h',
    'https://172.31.255.255/h',
    'https://192.168.1.1/h',
    'https://100.64.0.1/h', // CGNAT
    'https://169.254.169.254/latest/meta-data', // cloud metadata
    'https://[fd00:ec2::254]/h', // EC2 metadata over IPv6
    'https://[fe80::1]/h',
    'https://[fc00::1]/h',
    'https://[ff02::1]/h',
    'https://224.0.0.1/h',
    'https://255.255.255.255/h',
    'https://240.0.0.1/h',
    'https://198.18.0.1/h',
    'https://192.0.2.10/h',
    'https://[::ffff:127.0.0.1]/h', // IPv4-mapped
    'https://[::ffff:7f00:1]/h',
    'https://[::127.0.0.1]/h', // IPv4-compatible
    'https://[64:ff9b::7f00:1]/h', // NAT64
    'https://[64:ff9b::808:808]/h', // NAT64 of a public address: still a translator hop
    'https://[2002:7f00:1::]/h', // 6to4 embedding 127.0.0.1
    'https://[2002:c0a8:101::1]/h', // 6to4 embedding 192.168.1.1
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h', // Teredo
    'https://[2001:db8::1]/h',
    'https://localhost/h',
    'https://foo.localhost/h',
    'https://intranet/h', // single label
    'https://printer.local/h',
    'https://user:pass@example.com/h',
    'https://%31%32%37.0.0.1/h',
    'https://hooks.example.org:8443/x', // a port other than 443, not configured
    'https://example.com:80/h',
  ];
  for (const url of refused) {
    it(`refuses ${url}`, () => {
      expect(checkWebhookUrl(url, 'public').ok).toBe(false);
    });
  }

  const allowed = [
    'https://example.com/hooks/mandate',
    'https://hooks.example.org:443/x?y=1',
    'https://8.8.8.8/h',
    'https://[2606:4700:4700::1111]/h',
    'https://[2002:808:808::1]/h', // 6to4 of a public address
  ];
  for (const url of allowed) {
    it(`allows ${url}`, () => {
      expect(checkWebhookUrl(url, 'public')).toMatchObject({ ok: true });
    });
  }

  it('says "destination not allowed" for an address or a local name, never more', () => {
    for (const url of ['https://10.1.2.3/h', 'https://[fd00:ec2::254]/h', 'https://printer.local/h']) {
      expect(checkWebhookUrl(url, 'public')).toEqual({ ok: false, reason: 'destination not allowed' });
    }
  });

  it('allows the ports WEBHOOK_ALLOWED_PORTS lists, and only those', () => {
    expect(checkWebhookUrl('https://hooks.example.org:8443/x', 'public', [443, 8443])).toMatchObject({ ok: true });
    expect(checkWebhookUrl('https://hooks.example.org/x', 'public', [443, 8443])).toMatchObject({ ok: true });
    expect(checkWebhookUrl('https://hooks.example.org:8080/x', 'public', [443, 8443])).toMatchObject({
      ok: false,
      reason: 'must use port 443 or 8443 (port 8080 is not allowed)',
    });
    expect(checkWebhookUrl('https://hooks.example.org/x', 'public', [8443]).ok).toBe(false);
  });

  it('refuses URLs over 2048 characters', () => {
    expect(checkWebhookUrl(`https://example.com/${'a'.repeat(2048)}`, 'public').ok).toBe(false);
  });
});

describe('checkWebhookUrl under policy any', () => {
  it('allows http and loopback, still refuses other schemes', () => {
    expect(checkWebhookUrl('http://127.0.0.1:9/h', 'any').ok).toBe(true);
    expect(checkWebhookUrl('https://hooks.example.org:8443/h', 'any').ok).toBe(true);
    expect(checkWebhookUrl('https://localhost/h', 'any').ok).toBe(true);
    expect(checkWebhookUrl('file:///etc/passwd', 'any').ok).toBe(false);
    expect(checkWebhookUrl('javascript:alert(1)', 'any').ok).toBe(false);
  });
});

describe('isPublicAddress', () => {
  it('classifies resolved addresses', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2a00:1450:4001:80b::200e')).toBe(true);
    expect(isPublicAddress('2002:808:808::1')).toBe(true); // 6to4 of 8.8.8.8
    const refused = ['127.0.0.1', '::1', '::ffff:10.0.0.1', '::ffff:8.8.8.8', 'fd00:ec2::254', '169.254.169.254'];
    refused.push('0177.0.0.1', '127.1', '999.1.1.1', 'fe80::1%eth0', '4000::1', '3fff::1', '2002:c0a8:101::1');
    refused.push('64:ff9b:1::1', '100.64.0.1', '198.19.0.1', 'nonsense', '');
    for (const a of refused) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });
});
