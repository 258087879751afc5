// GET /docs: the API reference rendered in the browser from GET /api/v1/openapi.json by
// Swagger UI, served from the swagger-ui-dist package (no CDN: every asset comes from here).
// Assets are read once, on first use, and kept in memory.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ApiError } from '../errors/registry.js';
import type { Reply, RouteDef } from '../http/types.js';

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
  'cache-control': 'public, max-age=300',
};

function text(body: string, type: string): Reply {
  return { status: 200, rawJson: body, headers: { 'content-type': type, ...SECURITY_HEADERS } };
}

export function docsRoutes(): RouteDef[] {
  const root = dirname(require.resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, string>();
  return [
    {
      method: 'GET',
      path: '/docs',
      auth: 'none',
      internal: true,
      summary: 'The API reference as an HTML page',
      handler: () => text(INDEX_HTML, 'text/html; charset=utf-8'),
    },
    {
      method: 'GET',
      path: '/docs/assets/:name',
      auth: 'none',
      internal: true,
      summary: 'Assets of the API reference page',
      handler: (ctx) => {
        const name = ctx.params.name as string;
        if (name === 'init.js') return text(INIT_JS, 'text/javascript; charset=utf-8');
        const type = ASSETS[name];
        if (type === undefined) throw new ApiError('route_not_found');
        let body = cache.get(name);
        if (body === undefined) {
          body = readFileSync(join(root, name), 'utf8');
          cache.set(name, body);
        }
        return text(body, type);
      },
    },
  ];
}
