// GET /docs: the API reference rendered in the browser from GET /api/v1/openapi.json by
// Swagger UI, served from the swagger-ui-dist package (no CDN: every asset comes from here).
// Assets are read and gzip-compressed once, on first use, and kept in memory.
//
// These routes need no credential, so they are bounded (issue: one address fetching the 1.7 MB
// bundle in a loop served 5.56 GB in 20 s and pushed another tenant's /authorize p99 from 10 to
// 52 ms): every answer carries a strong ETag and may be cached for a day (a repeat with
// If-None-Match is 304 with no body), the bundle goes gzip-compressed to a client that accepts
// it (1.7 MB -> ~0.5 MB), and each client address gets 20 requests/s (burst 60: a page load is
// five requests) before 429 rate_limited with Retry-After.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ApiError } from '../errors/registry.js';
import { RateLimiter } from '../http/rate-limit.js';
import type { Reply, RequestContext, RouteDef } from '../http/types.js';

const require = createRequire(import.meta.url);

/** The only files served under /docs/assets/, with their media types. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Agent Spending Authorization Service: API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;

// Kept out of the page so that a Content-Security-Policy without 'unsafe-inline' holds.
const INIT_JS = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'BaseLayout',
  validatorUrl: null,
});
`;

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'public, max-age=86400',
  vary: 'accept-encoding',
};

/** One servable file: its text, its gzip form and their shared strong ETag. */
interface Asset {
  readonly type: string;
  readonly text: string;
  readonly gzip: Uint8Array;
  readonly etag: string;
}

function asset(text: string, type: string): Asset {
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
  return { type, text, gzip: gzipSync(text, { level: 9 }), etag };
}

/** True when If-None-Match names `etag` (or is `*`), weak or strong (RFC 9110 13.1.2). */
function notModified(ctx: RequestContext, etag: string): boolean {
  const header = ctx.headers['if-none-match'];
  if (header === undefined) return false;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*');
}

/** True when Accept-Encoding allows gzip (a q=0 refuses it). */
function acceptsGzip(ctx: RequestContext): boolean {
  const header = ctx.headers['accept-encoding'];
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip') return false;
    const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function serve(ctx: RequestContext, a: Asset): Reply {
  const headers: Record<string, string> = { 'content-type': a.type, etag: a.etag, ...SECURITY_HEADERS };
  if (notModified(ctx, a.etag)) return { status: 304, rawJson: '', headers: { etag: a.etag, ...SECURITY_HEADERS } };
  if (acceptsGzip(ctx)) return { status: 200, rawBytes: a.gzip, headers: { ...headers, 'content-encoding': 'gzip' } };
  return { status: 200, rawJson: a.text, headers };
}

export interface DocsRouteOptions {
  /** Requests per second per client address to /docs and its assets; 0 turns the limit off. */
  readonly requestsPerSecond?: number;
  /** Requests an address may send at once. */
  readonly burstRequests?: number;
}

export function docsRoutes(options: DocsRouteOptions = {}): RouteDef[] {
  const root = dirname(require.resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Asset>();
  const limiter = new RateLimiter({
    requestsPerSecond: options.requestsPerSecond ?? 20,
    burstRequests: options.burstRequests ?? 60,
    maxTrackedCredentials: 10_000,
    policyName: 'docs',
  });
  const bounded = (ctx: RequestContext) => limiter.check(ctx.ip, performance.now());
  const page = asset(INDEX_HTML, 'text/html; charset=utf-8');
  const init = asset(INIT_JS, 'text/javascript; charset=utf-8');
  return [
    {
      method: 'GET',
      path: '/docs',
      auth: 'none',
      internal: true,
      summary: 'The API reference as an HTML page',
      handler: (ctx) => {
        bounded(ctx);
        return serve(ctx, page);
      },
    },
    {
      method: 'GET',
      path: '/docs/assets/:name',
      auth: 'none',
      internal: true,
      summary: 'Assets of the API reference page',
      handler: (ctx) => {
        bounded(ctx);
        const name = ctx.params.name as string;
        if (name === 'init.js') return serve(ctx, init);
        const type = ASSETS[name];
        if (type === undefined) throw new ApiError('route_not_found');
        let a = cache.get(name);
        if (a === undefined) {
          a = asset(readFileSync(join(root, name), 'utf8'), type);
          cache.set(name, a);
        }
        return serve(ctx, a);
      },
    },
  ];
}
