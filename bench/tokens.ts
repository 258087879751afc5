// tinybench: access tokens before (hand-written compact JWS on node:crypto, as of d18e6fb^) and
// after (jose, src/auth/tokens.ts), side by side. Every Bearer request verifies its token: a
// token seen before is a cache hit, a new one pays the signature check once.
// Run: npm run build && node dist/bench/tokens.js
import { generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { Bench } from 'tinybench';
import { TokenService } from '../src/auth/tokens.js';
import { SAMPLE_TOKEN_CLAIMS } from './micro.js';
import { printTinybench } from './report/results.js';

// --- before: the hand-written version this change replaced (its mint and verify, minus the cache) ---
function b64url(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64url');
}
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const OLD_HEADER = b64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid: 'sk_bench' }));
const oldKeys = new Map<string, KeyObject>([['sk_bench', publicKey]]);

function oldMint(claims: Record<string, unknown>): string {
  const input = `${OLD_HEADER}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

function oldVerify(token: string): Record<string, unknown> | null {
  if (token.length > 4096) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [h, p, s] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (header.alg !== 'EdDSA' || typeof header.kid !== 'string') return null;
  const key = oldKeys.get(header.kid);
  if (key === undefined) return null;
  if (!verify(null, Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'))) return null;
  return typeof payload.exp === 'number' && typeof payload.sub === 'string' ? payload : null;
}

// --- after: the service's TokenService (jose) ---
const tokens = await TokenService.ephemeral();
const claims = SAMPLE_TOKEN_CLAIMS;
const iat = Math.floor(Date.now() / 1000);
const exp = iat + 3600;
const oldToken = oldMint({ iss: 'bench', ...claims, iat, exp, jti: 'j1' });
const newToken = await tokens.mint(claims, iat, exp);
if (oldVerify(oldToken) === null || (await tokens.verify(newToken)) === null) throw new Error('tokens do not verify');

// More tokens than the verified-token cache holds (10,000), so every verify checks a signature.
const pool = await Promise.all(Array.from({ length: 12_000 }, () => tokens.mint(claims, iat, exp)));
let next = 0;
let sink = 0;
const bench = new Bench({ time: 500, warmupTime: 100 });
bench
  .add('before: mint', () => {
    sink += oldMint({ iss: 'bench', ...claims, iat, exp, jti: `j${sink}` }).length;
  })
  .add('after:  mint', async () => {
    sink += (await tokens.mint(claims, iat, exp)).length;
  })
  .add('before: verify the signature of a token', () => {
    sink += oldVerify(oldToken) === null ? 0 : 1;
  })
  .add('after:  verify the signature of a token', async () => {
    // A token not yet verified each call: the pool is larger than the verified-token cache.
    next = (next + 1) % pool.length;
    sink += (await tokens.verify(pool[next] as string)) === null ? 0 : 1;
  })
  .add('after:  a token seen before (cached(), the Bearer hot path)', () => {
    sink += tokens.cached(newToken) === undefined ? 0 : 1;
  });

await bench.run();
printTinybench(bench.tasks);
if (sink === -1) console.log(sink);
