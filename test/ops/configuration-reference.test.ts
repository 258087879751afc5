// docs/configuration.md is what src/config/reference.ts renders, and the reference is what the
// parser reads: a variable cannot be parsed without a row on the page, nor listed without being
// parsed (or read by the library or script its row names). UPDATE_DOCS=1 rewrites the page
// instead of failing (as `npm run docs` does).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { CONFIG_VARIABLES, renderConfigReference } = (await import(
  `${DIST}config/reference.js`
)) as typeof import('../../src/config/reference.js');
const { loadConfig } = (await import(`${DIST}config/config.js`)) as typeof import('../../src/config/config.js');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FILE = join(ROOT, 'docs/configuration.md');
const variables = Object.entries(CONFIG_VARIABLES) as [
  string,
  import('../../src/config/reference.js').ConfigVariable,
][];
const parsed = variables.filter(([, v]) => v.kind !== 'external').map(([name]) => name);

/** The names loadConfig asks its environment for, on the defaults. */
function namesRead(): string[] {
  const seen = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') seen.add(key);
      return undefined;
    },
  });
  loadConfig(env);
  return [...seen];
}

/** A source without its comments. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('docs/configuration.md', () => {
  it('is the page rendered from the reference, with a row per variable', () => {
    const rendered = renderConfigReference();
    for (const [name] of variables) expect(rendered).toContain(`| \`${name}\` |`);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(FILE, rendered);
    expect(
      readFileSync(FILE, 'utf8'),
      'docs/configuration.md is stale: npm run docs (or UPDATE_DOCS=1 npx vitest run test/ops/configuration-reference.test.ts)',
    ).toBe(rendered);
  });

  it('lists exactly the variables loadConfig reads', () => {
    expect(namesRead().sort()).toEqual([...parsed].sort());
  });

  it('has the variables CONTRACT.md names for deployments and test harnesses', () => {
    for (const name of [
      'PORT',
      'HOST',
      'DATABASE_URL',
      'SANDBOX_DATABASE_URL',
      'DATA_DIR',
      'NATS_URL',
      'ADMIN_KEY',
      'WORKERS',
      'TRUSTED_PROXIES',
      'WEBHOOK_URL_POLICY',
      'WEBHOOK_RETRY_SCHEDULE_MS',
      'WEBHOOK_TIMEOUT_MS',
      'WEBHOOK_DISABLE_AFTER',
      'OAUTH_TOKEN_TTL_SECONDS',
      'KEY_ROTATION_GRACE_SECONDS',
      'LOG_LEVEL',
      'SECRETS_KEY',
      'RATE_LIMIT_REQUESTS_PER_SECOND',
      'RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND',
      'AUTH_FAILURE_LIMIT',
      'AUTH_FAILURE_WINDOW_SECONDS',
      'EMBEDDED_SANDBOX_OPEN',
    ]) {
      expect(parsed, name).toContain(name);
    }
  });

  it('holds the bounds the parser enforces, and defaults within them', () => {
    const config = loadConfig({});
    expect(config.port).toBe(CONFIG_VARIABLES.PORT.default);
    expect(config.logLevel).toBe(CONFIG_VARIABLES.LOG_LEVEL.default);
    for (const [name, v] of variables) {
      if (v.kind === 'integer') {
        if (v.default !== null) expect(v.default, name).toBeGreaterThanOrEqual(v.min);
        if (v.default !== null) expect(v.default, name).toBeLessThanOrEqual(v.max);
        // The claim lease must also exceed the webhook timeout: give it the smallest one.
        const base = name === 'WEBHOOK_CLAIM_LEASE_MS' ? { WEBHOOK_TIMEOUT_MS: '1' } : {};
        expect(() => loadConfig({ ...base, [name]: String(v.min) }), `${name}=${v.min}`).not.toThrow();
        expect(() => loadConfig({ ...base, [name]: String(v.max) }), `${name}=${v.max}`).not.toThrow();
        expect(() => loadConfig({ ...base, [name]: String(v.max + 1) })).toThrowError(
          new RegExp(`^${name}: must be between ${v.min} and ${v.max}`),
        );
      }
      if (v.kind === 'choice') {
        expect(v.values, name).toContain(v.default);
        for (const value of v.values) expect(() => loadConfig({ [name]: value }), `${name}=${value}`).not.toThrow();
        expect(() => loadConfig({ [name]: 'none-of-these' })).toThrowError(new RegExp(`^${name}: `));
      }
      if (v.kind === 'text' && v.pattern !== undefined) {
        expect(v.default === null || v.pattern.test(v.default), name).toBe(true);
        expect(() => loadConfig({ [name]: 'not valid!' })).toThrowError(new RegExp(`^${name}: `));
      }
    }
  });

  it("agrees with the other pages' tables that state a variable's default", () => {
    const stated: string[] = [];
    for (const page of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
      if (page === 'configuration.md') continue;
      for (const line of readFileSync(join(ROOT, 'docs', page), 'utf8').split('\n')) {
        // | `NAME` | `value` | … : a row naming one variable and, in its second cell, one value.
        const m = /^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|\s*`([^`|]*)`\s*\|/.exec(line);
        const v = m === null ? undefined : (CONFIG_VARIABLES as Record<string, { default: unknown }>)[m[1] as string];
        if (m === null || v === undefined) continue;
        stated.push(`${page}: ${m[1]}`);
        const def = typeof v.default === 'boolean' ? (v.default ? 'on' : 'off') : String(v.default);
        expect(m[2], `docs/${page} states ${m[1]}'s default`).toBe(def);
      }
    }
    expect(stated).toContain('scale-out.md: SHARD_LEASE_TTL_MS');
  });

  it('names every environment variable the sources read, and where the parser is bypassed', () => {
    const reads: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const path = relative(ROOT, file);
      const text = code(readFileSync(file, 'utf8'));
      for (const m of text.matchAll(/process\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*['"]([^'"]+)['"]\s*\])?/g)) {
        const name = m[1] ?? m[2];
        if (name === undefined) {
          // The whole environment goes to the parser, and nowhere else.
          expect(text.slice((m.index ?? 0) - 'loadConfig('.length, (m.index ?? 0) + m[0].length + 1), path).toBe(
            'loadConfig(process.env)',
          );
          continue;
        }
        reads.push(`${path}: ${name}`);
        const v = (CONFIG_VARIABLES as Record<string, import('../../src/config/reference.js').ConfigVariable>)[name];
        expect(v, `${path} reads ${name}, which src/config/reference.ts does not list`).toBeDefined();
        expect(v?.kind === 'external' && v.readBy === path, `${path} reads ${name} outside the parser`).toBe(true);
      }
    }
    expect(reads).toContain('src/http/uws-env.ts: UWS_HTTP_MAX_HEADERS_SIZE');
    // In the parser itself, one function reads the environment (str, which takes a listed name).
    const parser = code(readFileSync(join(ROOT, 'src/config/config.ts'), 'utf8'));
    expect(parser).not.toMatch(/process\.env/);
    expect(parser.match(/\benv(\.[A-Za-z_]|\[)/g)).toEqual(['env[']);
    for (const [name, v] of variables) {
      if (v.kind === 'external') expect(readFileSync(join(ROOT, v.readBy), 'utf8'), name).toContain(name);
    }
  });
});
